// SPDX-License-Identifier: MIT
// Stores from several invocations to one word where any one of them may win: the repeated scatter's
// bucket heads (Listing 1 of seed 002: "last writer wins") and flags that every writer sets alike.
// A plain store there is a data race, undefined behaviour under the Vulkan memory model. A relaxed
// atomic store is defined, orders nothing else and costs what a plain store costs; it is a store, not
// a read-modify-write, so the bucket build stays free of atomics in the paper's sense (no counters,
// no contention loops). glslc emits OpAtomicStore with Device scope under the GLSL450 memory model:
// no VulkanMemoryModel capability or feature is needed.
#ifndef VKSORT_STORE_ANY_WINS_GLSL
#define VKSORT_STORE_ANY_WINS_GLSL

#extension GL_KHR_memory_scope_semantics : require

// A macro: atomicStore needs the buffer word itself, which a function parameter would copy.
#define store_any_wins(word, value) \
  atomicStore(word, value, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)

#endif
