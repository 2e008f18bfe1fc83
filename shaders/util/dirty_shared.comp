// SPDX-License-Identifier: MIT
#version 460
// DeviceOptions::pretend.dirty_shared_memory: runs before every kernel vksort dispatches and fills the
// most workgroup memory a workgroup may have with dirty_shared_word(i, seed), a new seed each time.
// GPUs leave workgroup memory as the last workgroup on that multiprocessor left it, so a kernel that
// reads a word of it before writing it gets another kernel's bytes; lavapipe's workers keep their
// workgroup memory from one dispatch to the next, which this fills, so that such a read shows on
// lavapipe too: on every worker that runs one of this kernel's workgroups (all of them on one thread,
// LP_NUM_THREADS=1; with LP_NUM_THREADS=0 lavapipe allocates workgroup memory per dispatch, and
// nothing carries over).
// Atomic stores: a compiler may drop plain stores to workgroup memory that nothing reads before the
// workgroup ends.
#extension GL_KHR_memory_scope_semantics : require
#define PUSH_DIRTY_SHARED
#include "common/interface.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_SHARED_WORDS) const uint WORDS = 1;

shared uint s_words[WORDS];

void main() {
  for (uint i = gl_LocalInvocationID.x; i < WORDS; i += gl_WorkGroupSize.x)
    atomicStore(s_words[i], dirty_shared_word(i, pc.seed), gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                gl_SemanticsRelaxed);
}
