# SPDX-License-Identifier: GPL-2.0-or-later
# Sphinx configuration of the FARE for FRRouting documentation
# (scripts/build-docs.sh; the test run builds it with warnings as errors).
# The user guide is written in FRR's style: the clicmd directive and role,
# and "frr" code blocks, which FRR's own documentation defines; they are
# defined here the simplest way so that this tree builds on its own.

from pygments.lexers.special import TextLexer
from sphinx.highlighting import lexers

project = "FARE for FRRouting"
author = "FARE for FRRouting maintainers"
copyright = "2026, " + author
version = release = "0.1.0"

master_doc = "index"
exclude_patterns = ["_build"]
highlight_language = "none"
html_theme = "alabaster"
nitpicky = False


def setup(app):
    # ".. clicmd:: COMMAND" and ":clicmd:`COMMAND`", as in FRR's manual
    app.add_object_type("clicmd", "clicmd", objname="CLI command",
                        indextemplate="pair: %s; configuration command")
    # configuration and vtysh sessions: shown as they are
    lexers["frr"] = TextLexer()
