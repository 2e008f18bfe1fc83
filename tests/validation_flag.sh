# SPDX-License-Identifier: MIT
# Sourced by the tests that run the vksort CLI from bash: sets the array `validation` to (--validation)
# where the Khronos validation layer is installed, else to (), so those runs are validated like every
# other test wherever they can be.
validation=()
for d in /usr/share/vulkan/explicit_layer.d /etc/vulkan/explicit_layer.d /usr/local/share/vulkan/explicit_layer.d; do
  if [ -e "$d/VkLayer_khronos_validation.json" ]; then validation=(--validation); fi
done
