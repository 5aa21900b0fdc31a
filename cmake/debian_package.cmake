# The Debian package (`cpack -G DEB` in the build tree; scripts/package.sh):
# the installed tree of install_layout.cmake under /usr.
#
# Dependencies are written by hand, not by dpkg-shlibdeps: the tracer's
# libcuda.so.1 (the NVIDIA driver) and libcupti.so (the CUDA toolkit) belong
# to no Debian package one could name, and shlibdeps stops at them.
# tests/install/package_test.sh checks that every library the installed
# files need is named below, bundled, or one of those two.
#   Depends: what `run`, `replay` and `report` need. The command links SQLite
#     and libstdc++ statically; the tracer loads the system's libsqlite3.so.0
#     (Debian's static archive is not position-independent).
#   Recommends: the lint's Clang 22 (its libraries and its resource headers,
#     which it parses CUDA with), and g++ for building the PyTorch plugin where
#     PyTorch is. A GPU machine that only runs programs may leave them out;
#     `streamcheck doctor` says what is then missing.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME streamcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "streamcheck maintainers <streamcheck@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "finds stream-ordering bugs in CUDA programs")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "streamcheck run traces a CUDA program (C++, PyTorch, ...) and reports work on two streams, or on a stream "
  "and the host, that touches the same memory with no happens-before edge; streamcheck lint finds the same "
  "bugs in CUDA/C++ sources with Clang; findings go to a SQLite database that streamcheck report prints as "
  "text, JSON, SARIF, Code Climate or HTML.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.36), libsqlite3-0 (>= 3.34), liblzma5")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libclang-cpp22, libllvm22, libclang-common-22-dev, libstdc++6, libgcc-s1, g++")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3")
include(CPack)
