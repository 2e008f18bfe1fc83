// SPDX-License-Identifier: MIT
/* volk, compiled once inside vksort with every global renamed (see vulkan.hpp). Debian's
   libvulkan-volk-dev ships volk.c as a header-like source to be built by its user. */
#include "volk_private_names.h"
#include <volk.c>
