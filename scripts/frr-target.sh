# Sourced by the scripts that build or test FARE: which FRR release they
# work on. FARE_FRR selects it: 10.7 (the default, FRR 10.7.1 from Debian
# sid's source package) or 10.3 (Debian 13's). It sets
#   FRR_PATCHES  the patch series for that release (patches/frr-<release>/)
#   BUILD        the build directory, unless already set: build/ for 10.7,
#                build-frr10.3/ for 10.3
# TOP must be set to the repository's top directory.
FARE_FRR=${FARE_FRR:-10.7}
case $FARE_FRR in
10.7) BUILD=${BUILD:-$TOP/build} ;;
10.3) BUILD=${BUILD:-$TOP/build-frr10.3} ;;
*)
	echo "FARE_FRR=$FARE_FRR: FARE builds on FRR 10.7 (default) or 10.3" >&2
	exit 1
	;;
esac
FRR_PATCHES=$TOP/patches/frr-$FARE_FRR
export FARE_FRR BUILD FRR_PATCHES
