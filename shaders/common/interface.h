// The contract between the runtime and the shaders: specialization constant ids and push-constant
// blocks, in one file valid as both C++ and GLSL so the two sides cannot drift apart.
//
// GLSL lays push constants out by std430: a uvec2 (a device address) is 8-byte aligned, a uint 4. The
// C++ mirror uses an 8-byte aligned Address for the same layout; static_asserts in the runtime check
// the sizes. Put addresses first in every block.
#ifndef VKSORT_INTERFACE_H
#define VKSORT_INTERFACE_H

#ifdef __cplusplus
#include <cstdint>
namespace vksort::shader {
using uint = uint32_t;
struct alignas(8) Address {
  uint32_t lo = 0, hi = 0;
  Address() = default;
  Address(uint64_t a) : lo(uint32_t(a)), hi(uint32_t(a >> 32)) {}
};
#define VKSORT_ADDRESS Address
#define VKSORT_PUSH_BLOCK(Name) struct Name
#define VKSORT_PUSH_END
#else
#define VKSORT_ADDRESS uvec2
#define VKSORT_PUSH_BLOCK(Name) layout(push_constant, std430) uniform Name
#define VKSORT_PUSH_END pc
#endif

// Specialization constant ids (0 is local_size_x_id in every shader).
#define SPEC_WORKGROUP_SIZE 0
#define SPEC_KEY_KIND 1        // 0 unsigned, 1 signed, 2 float
#define SPEC_DESCENDING 2      // bool
#define SPEC_HAS_VALUES 3      // bool: a 32-bit value travels with each key
#define SPEC_ITEMS_PER_THREAD 4

#define KEY_KIND_UNSIGNED 0
#define KEY_KIND_SIGNED 1
#define KEY_KIND_FLOAT 2

// --- brick sort -----------------------------------------------------------------------------------
// The control block of a brick sort lives at the start of its scratch buffer (32-bit words).
#define BRICK_CONTROL_CHANGED 0     // set to 1 by any phase that moved a key in the current round
#define BRICK_CONTROL_ROUNDS 1      // rounds that ran (the gate counts them)
#define BRICK_CONTROL_EVEN_ARGS 4   // VkDispatchIndirectCommand of the even phase (x, y, z)
#define BRICK_CONTROL_ODD_ARGS 8    // VkDispatchIndirectCommand of the odd phase
#define BRICK_CONTROL_WORDS 12

// tile_sort, merge_split and pairs_phase.
#if defined(__cplusplus) || defined(PUSH_BRICK)
VKSORT_PUSH_BLOCK(BrickPush) {
  VKSORT_ADDRESS keys;
  VKSORT_ADDRESS values;   // unused unless HAS_VALUES
  VKSORT_ADDRESS control;  // BRICK_CONTROL_* words
  uint n;                  // keys
  uint parity;             // 0: even phase (pairs 0-1, 2-3, ...), 1: odd phase (pairs 1-2, 3-4, ...)
  uint group_count;        // logical workgroups; excess groups of a 3-D grid return at once
} VKSORT_PUSH_END;
#endif

// round_gate: one invocation decides whether the next round runs.
#if defined(__cplusplus) || defined(PUSH_GATE)
VKSORT_PUSH_BLOCK(GatePush) {
  VKSORT_ADDRESS control;
  uint force;              // 1 for the first round: it runs whatever the flag says
  uint even_x, even_y, even_z;  // grid of the even phase when the round runs
  uint odd_x, odd_y, odd_z;     // grid of the odd phase
} VKSORT_PUSH_END;
#endif

// --- utilities ------------------------------------------------------------------------------------
#if defined(__cplusplus) || defined(PUSH_COPY)
VKSORT_PUSH_BLOCK(CopyPush) {
  VKSORT_ADDRESS src;
  VKSORT_ADDRESS dst;
  uint words;
  uint group_count;
} VKSORT_PUSH_END;
#endif

#ifdef __cplusplus
}  // namespace vksort::shader
#endif
#endif  // VKSORT_INTERFACE_H
