# SPDX-License-Identifier: MIT
# CPack: a Debian package of `cmake --install` (headers, library, CMake package, vksort.pc, the CLI).
# `cpack -G DEB` in a build folder writes libvksort-dev_<version>_<arch>.deb there.
set(CPACK_PACKAGE_NAME vksort)
set(CPACK_PACKAGE_VENDOR "vksort developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU sorting on Vulkan compute: library, headers, CMake package and CLI")
set(CPACK_PACKAGE_CONTACT "vksort developers <vksort@localhost>")
set(CPACK_GENERATOR DEB)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Debian names a package with headers and a link library -dev. The shared build carries libvksort.so.*
# in the same package (one package keeps the CI simple; split it when the ABI is promised).
set(CPACK_DEBIAN_PACKAGE_NAME libvksort-dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# The headers include <vulkan/vulkan_core.h> (libvulkan-dev, which also lets find_package(Vulkan)
# succeed); the library opens libvulkan.so.1 at run time (libvulkan1). A Vulkan driver is needed to
# sort anything, but which one is the machine's business: Mesa's (lavapipe on any CPU) is recommended.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libvulkan1, libvulkan-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers")
# Shared builds: dpkg-shlibdeps adds the C++ runtime and libc the binaries need.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
