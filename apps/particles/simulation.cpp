// SPDX-License-Identifier: MIT
#include "simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <string>

#include <vksort/bucket_lists.hpp>
#include <vksort/device.hpp>
#include <vksort/sorter.hpp>

#include "gpu_buffer.hpp"
#include "gpu_kernel.hpp"
#include "shader_code.hpp"
#include "shaders/dpd_interface.h"

namespace particles {

namespace {
using shader::Push;
static_assert(sizeof(shader::Params) == 36 * 4 + 3 * 8, "Params must match the std430 GLSL block");
static_assert(sizeof(Push) == 14 * 8 + 8, "Push must match the GLSL push block");
static_assert(sizeof(Push) <= 128, "Vulkan guarantees only 128 bytes of push constants (maxPushConstantsSize)");

// Timestamps per step: before move, after move, after the cell build, after forces, after kick.
constexpr uint32_t kStamps = 5;

template <class T>
std::span<const std::byte> bytes(const std::vector<T>& v) { return std::as_bytes(std::span(v)); }
template <class T>
std::span<std::byte> bytes(std::vector<T>& v) { return std::as_writable_bytes(std::span(v)); }

shader::Params params_for(const Model& m, const Grid& g, uint32_t n) {
  shader::Params p{};
  p.lx = m.lx, p.ly = m.ly, p.lz = m.lz, p.rc = m.rc;
  p.nx = g.nx, p.ny = g.ny, p.nz = g.nz, p.n = n;
  p.reach = g.reach;
  p.cell_x = m.lx / float(g.nx), p.cell_y = m.ly / float(g.ny), p.cell_z = m.lz / float(g.nz);
  p.dt = m.dt;
  p.gravity = m.gravity;
  p.extrapolate = m.integrator == Integrator::leapfrog ? 0.5f : 0.0f;
  p.inv_sqrt_dt = 1.0f / std::sqrt(m.dt);
  p.periodic_z = m.periodic_z ? 1u : 0u;
  p.rng = m.noise == Noise::paper ? DPD_RNG_PAPER : DPD_RNG_COUNTER;
  p.seed = m.seed;
  for (int s = 0; s < 2; ++s) p.mass[s] = m.mass[s];
  for (int k = 0; k < 2; ++k)
    for (int l = 0; l < 2; ++l) {
      p.a[k * 2 + l] = m.a[k][l];
      p.gamma[k * 2 + l] = m.gamma[k][l];
      p.sigma[k * 2 + l] = std::sqrt(2.0f * m.gamma[k][l] * m.kbt);  // fluctuation-dissipation
    }
  return p;
}

void check_model(const Model& m) {
  if (!(m.dt > 0.0f) || !(m.kbt >= 0.0f)) throw Error("dt must be positive and kBT non-negative");
  for (int s = 0; s < 2; ++s)
    if (!(m.mass[s] > 0.0f)) throw Error("masses must be positive");
  for (int k = 0; k < 2; ++k)
    for (int l = 0; l < 2; ++l) {
      if (m.a[k][l] != m.a[l][k] || m.gamma[k][l] != m.gamma[l][k])
        throw Error("pair parameters must be symmetric (a_kl = a_lk, gamma_kl = gamma_lk)");
      if (!(m.gamma[k][l] >= 0.0f)) throw Error("gamma must be non-negative");
    }
}
}  // namespace

struct Simulation::Impl {
  gpu::Context& ctx;
  vksort::Device vk;  // vksort on the app's device (borrowed)
  vksort::Buffer params, pos, vel, vtilde, force, cell, aux, ids;
  vksort::Buffer image, virial;  // by particle id; per slot, written when a step asks for the tensor
  vksort::Buffer accum;          // per slot: the Newton variant's fixed-point force sums, zero between steps
  vksort::BucketLists lists;
  VkDeviceAddress head = 0, next = 0;
  gpu::Kernel cells, move, forces, kick, noise, reorder, starts_kernel;
  gpu::Kernel forces_tensor;  // forces.comp that also sums the pressure tensor (specialization constant 1)
  // forces.comp computing each pair once into `accum`, then forces_total.comp turning the sums into forces.
  gpu::Kernel forces_newton, forces_total;
  bool newton;  // cell order with Model::newton
  // Spatial reordering: (cell id, slot) pairs sorted by vksort's radix sort on the cell id's bits,
  // then gathered through `tmp` and copied back.
  vksort::Sorter sorter;
  vksort::Buffer keys, perm, iota, scratch, tmp;
  // Cell order: the first slot of every cell, then the outside-the-box word (dpd_interface.h).
  bool cell_order;
  uint32_t cell_count;
  vksort::Buffer starts;
  vksort::Buffer report;  // a copy of vksort's report words from the last build of a batch
  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t query_capacity = 0;  // steps

  Impl(gpu::Context& c, const Model& m, const Grid& g, uint32_t n)
      : ctx(c),
        vk(c.borrowed()),
        params(vk, sizeof(shader::Params), "parameters"),
        pos(vk, 16ull * n, "positions"),
        vel(vk, 16ull * n, "velocities"),
        vtilde(vk, 16ull * n, "dissipative velocities"),
        force(vk, 16ull * n, "forces"),
        cell(vk, 4ull * n, "cell ids"),
        aux(vk, 16ull * n, "pair statistics"),
        ids(vk, 4ull * n, "particle ids"),
        image(vk, 16ull * n, "periodic images"),
        virial(vk, 64ull * n, "pressure tensor sums"),
        accum(vk, 24ull * n, "fixed-point force sums"),
        lists(vk, bucket_options(m, g, n)),
        cells(c, shader_code("cells"), sizeof(Push), "cells"),
        move(c, shader_code("move"), sizeof(Push), "move"),
        forces(c, shader_code("forces"), sizeof(Push), "forces"),
        kick(c, shader_code("kick"), sizeof(Push), "kick"),
        noise(c, shader_code("noise"), sizeof(Push), "noise"),
        reorder(c, shader_code("reorder"), sizeof(Push), "reorder"),
        starts_kernel(c, shader_code("starts"), sizeof(Push), "starts"),
        forces_tensor(c, shader_code("forces"), sizeof(Push), "forces with the pressure tensor", DPD_FORCES_TENSOR),
        forces_newton(c, shader_code("forces"), sizeof(Push), "forces, each pair once", DPD_FORCES_NEWTON),
        forces_total(c, shader_code("forces_total"), sizeof(Push), "force totals"),
        newton(m.layout == Layout::cell_order && m.newton),
        sorter(vk, sort_options(g)),
        keys(vk, 4ull * n, "reorder keys"),
        perm(vk, 4ull * n, "reorder permutation"),
        iota(vk, 4ull * n, "slot numbers"),
        scratch(vk, sorter.scratch_bytes(n), "reorder scratch"),
        tmp(vk, 68ull * n, "reorder staging"),
        cell_order(m.layout == Layout::cell_order),
        cell_count(g.cells()),
        starts(vk, 4ull * (g.cells() + 2), "cell starts"),
        report(vk, vksort::BucketLists::report_bytes, "bucket report") {
    head = gpu::address_of(c, lists.head());
    next = gpu::address_of(c, lists.next());
  }
  ~Impl() {
    if (queries) vkDestroyQueryPool(ctx.device(), queries, nullptr);
  }

  static vksort::BucketOptions bucket_options(const Model& m, const Grid& g, uint32_t n) {
    vksort::BucketOptions o;
    o.buckets = g.cells();
    o.capacity = n;
    o.mode = m.cells == Cells::sort ? vksort::BucketMode::sort : vksort::BucketMode::scatter;
    o.max_iterations = std::max(1u, m.list_iterations);
    o.parts = m.list_parts;
    return o;
  }

  static vksort::SortOptions sort_options(const Grid& g) {
    vksort::SortOptions o;
    o.key = vksort::Key::u32;
    o.algorithm = vksort::Algorithm::radix;
    o.value_bytes = 4;
    uint32_t bits = 1;  // cell ids are below 2^bits: fewer radix passes
    while (bits < 32 && (uint64_t(1) << bits) < g.cells()) ++bits;
    o.end_bit = bits;
    return o;
  }

  // The parameter block with the addresses it carries (the buffers that the push block has no room for).
  shader::Params parameters(const Model& m, const Grid& g, uint32_t n) const {
    shader::Params p = params_for(m, g, n);
    p.image = image.address();
    p.virial = virial.address();
    p.accum = accum.address();
    return p;
  }

  Push push(uint32_t step) const {
    Push p{};
    p.params = params.address();
    p.pos = pos.address();
    p.vel = vel.address();
    p.vtilde = vtilde.address();
    p.force = force.address();
    p.cell = cell.address();
    p.head = head;
    p.next = next;
    p.aux = aux.address();
    p.ids = ids.address();
    if (cell_order) p.starts = starts.address();
    p.step = step;
    return p;
  }

  void ensure_queries(uint32_t steps) {
    if (!ctx.timestamps() || steps <= query_capacity) return;
    if (queries) vkDestroyQueryPool(ctx.device(), queries, nullptr);
    VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qci.queryCount = steps * kStamps;
    gpu::check(vkCreateQueryPool(ctx.device(), &qci, nullptr, &queries), "creating timestamp queries");
    query_capacity = steps;
  }

  void stamp(VkCommandBuffer cmd, uint32_t query) const {
    if (queries) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries, query);
  }

  // Cell ids, then (cell order) the particles sorted by cell and every cell's first slot, or (lists)
  // vksort's lists over the cells; leaves what the force kernel walks visible to it.
  void record_neighbours(VkCommandBuffer cmd, const Push& p, uint32_t n) {
    cells.dispatch(cmd, &p, n);
    if (cell_order) {
      record_reorder(cmd, p, n);
      starts_kernel.dispatch(cmd, &p, cell_count + 1);
      gpu::compute_barrier(cmd);
      return;
    }
    gpu::compute_barrier(cmd);  // vksort's contract: ids visible to COMPUTE_SHADER reads
    vksort::Status s = lists.record_build(cmd, cell.ref(), n);
    if (!s) throw Error("recording the bucket lists: " + s.message);
    gpu::compute_barrier(cmd);  // head/next written by COMPUTE_SHADER, read by the force kernel
  }

  // Sorts the slots by the cell ids just computed and moves every per-particle array into that order
  // (cell ids too, so the lists that follow are built from them). Runs between cells and the build.
  void record_reorder(VkCommandBuffer cmd, Push p, uint32_t n) {
    const VkDeviceSize words = 4ull * n, vec4s = 16ull * n;
    gpu::compute_transfer_barrier(cmd);  // cell ids written; earlier uses of keys/perm/tmp done
    const VkBufferCopy whole{0, 0, words};
    vkCmdCopyBuffer(cmd, cell.vk_buffer(), keys.vk_buffer(), 1, &whole);
    vkCmdCopyBuffer(cmd, iota.vk_buffer(), perm.vk_buffer(), 1, &whole);
    gpu::compute_transfer_barrier(cmd);  // vksort's contract: keys and values visible to COMPUTE
    vksort::Status st = sorter.record(cmd, {.keys = keys.ref(), .values = perm.ref(), .scratch = scratch.ref()}, n);
    if (!st) throw Error("recording the spatial sort: " + st.message);
    gpu::compute_barrier(cmd);
    p.perm = perm.address();
    p.tmp = tmp.address();
    reorder.dispatch(cmd, &p, n);
    gpu::compute_transfer_barrier(cmd);
    const VkBuffer dst[4] = {pos.vk_buffer(), vel.vk_buffer(), vtilde.vk_buffer(), force.vk_buffer()};
    for (int k = 0; k < 4; ++k) {
      const VkBufferCopy r{k * vec4s, 0, vec4s};
      vkCmdCopyBuffer(cmd, tmp.vk_buffer(), dst[k], 1, &r);
    }
    const VkBufferCopy id_region{4 * vec4s, 0, words};
    vkCmdCopyBuffer(cmd, tmp.vk_buffer(), ids.vk_buffer(), 1, &id_region);
    vkCmdCopyBuffer(cmd, keys.vk_buffer(), cell.vk_buffer(), 1, &whole);  // the sorted keys are the new slots' cells
    gpu::compute_transfer_barrier(cmd);
  }

  // slot -> particle id, as the GPU holds it now.
  std::vector<uint32_t> download_ids(uint32_t n) const {
    std::vector<uint32_t> v(n);
    ids.download(bytes(v));
    return v;
  }

  // Copies vksort's report into our buffer so the host can check for particles outside the box.
  void record_report_copy(VkCommandBuffer cmd) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &b, 0,
                         nullptr, 0, nullptr);
    const vksort::BufferRef r = lists.report();
    VkBufferCopy region{r.offset, 0, vksort::BucketLists::report_bytes};
    vkCmdCopyBuffer(cmd, r.buffer, report.vk_buffer(), 1, &region);
  }

  void check_report(uint64_t step) const {
    uint32_t bad_slot = DPD_NULL;
    if (cell_order) {  // the smallest id found outside; its slot after the sort
      std::vector<uint32_t> bad(1);
      starts.download(bytes(bad), 4ull * (cell_count + 1));
      if (bad[0] != DPD_NULL) {
        const std::vector<uint32_t> slot_ids = download_ids(uint32_t(ids.size() / 4));
        bad_slot = uint32_t(std::find(slot_ids.begin(), slot_ids.end(), bad[0]) - slot_ids.begin());
      }
    } else {
      std::vector<uint32_t> words(vksort::BucketLists::report_bytes / 4);
      report.download(bytes(words));
      const vksort::BucketReport r = vksort::BucketLists::decode_report(words);
      if (r.out_of_range) bad_slot = r.bad_element;
    }
    if (bad_slot != DPD_NULL) {
      std::vector<float> p(4);
      std::vector<uint32_t> id(1);
      pos.download(bytes(p), 16ull * bad_slot);
      ids.download(bytes(id), 4ull * bad_slot);
      throw Error("step " + std::to_string(step) + ": particle " + std::to_string(id[0]) +
                  " left the box (at " + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " +
                  std::to_string(p[2]) + "); the time step is probably too large");
    }
  }
};

Simulation::Simulation(gpu::Context& ctx, const Model& model, const State& initial)
    : model_(model), grid_(grid_for(model)), n_(initial.size()), step_(initial.step) {
  check_model(model_);
  if (n_ == 0) throw Error("no particles");
  if (initial.vel.size() != initial.pos.size()) throw Error("positions and velocities differ in count");
  if (!initial.vtilde.empty() && initial.vtilde.size() != initial.pos.size())
    throw Error("positions and dissipative velocities differ in count");
  if (!initial.image.empty() && initial.image.size() != initial.pos.size())
    throw Error("positions and periodic images differ in count");
  if (step_ > 0xFFFFFFFFull) throw Error("step " + std::to_string(step_) + " is beyond the noise's 32-bit step counter");
  check_inside(model_, initial);
  impl_ = std::make_unique<Impl>(ctx, model_, grid_, n_);
  const shader::Params p = impl_->parameters(model_, grid_, n_);
  impl_->params.upload(std::as_bytes(std::span(&p, 1)));
  impl_->pos.upload(bytes(initial.pos));
  impl_->vel.upload(bytes(initial.vel));
  // At t = 0 the dissipative force sees v(0); a restart brings the one its run had.
  impl_->vtilde.upload(bytes(initial.vtilde.empty() ? initial.vel : initial.vtilde));
  impl_->image.upload(bytes(initial.image.empty() ? std::vector<int32_t>(4 * size_t(n_), 0) : initial.image));
  impl_->accum.upload(bytes(std::vector<uint32_t>(6 * size_t(n_), 0)));
  std::vector<uint32_t> iota(n_);
  for (uint32_t i = 0; i < n_; ++i) iota[i] = i;
  impl_->iota.upload(bytes(iota));
  impl_->ids.upload(bytes(iota));  // slot i holds particle i until the first reorder
  const std::vector<uint32_t> none(1, DPD_NULL);
  impl_->starts.upload(bytes(none), 4ull * (grid_.cells() + 1));  // no particle outside yet
  // Initial forces F(0) (or F at the restart's step): the first move's half kick needs them.
  ctx.submit_and_wait([&](VkCommandBuffer cmd) {
    const Push push = impl_->push(uint32_t(step_));
    impl_->record_neighbours(cmd, push, n_);
    impl_->forces_tensor.dispatch(cmd, &push, n_);
    impl_->record_report_copy(cmd);
  });
  impl_->check_report(0);
}

Simulation::~Simulation() = default;

void Simulation::advance(uint64_t steps, uint32_t batch) {
  Impl& s = *impl_;
  batch = std::max(batch, 1u);
  while (steps > 0) {
    const uint32_t now = uint32_t(std::min<uint64_t>(steps, batch));
    s.ensure_queries(now);
    s.ctx.submit_and_wait([&](VkCommandBuffer cmd) {
      if (s.queries) vkCmdResetQueryPool(cmd, s.queries, 0, now * kStamps);
      for (uint32_t k = 0; k < now; ++k) {
        const uint32_t q = k * kStamps;
        // The step number keys the noise: step n+1's forces use n+1 (the initial forces used 0).
        const bool last = k + 1 == now && steps == now;  // sums the pressure tensor too
        const Push push = s.push(uint32_t(step_ + k + 1));
        gpu::compute_barrier(cmd);  // the previous step's kick and forces before this move
        s.stamp(cmd, q + 0);
        s.move.dispatch(cmd, &push, n_);
        gpu::compute_barrier(cmd);
        s.stamp(cmd, q + 1);
        const uint64_t step = step_ + k + 1;
        if (!s.cell_order && model_.reorder_every && step % model_.reorder_every == 0) {
          s.cells.dispatch(cmd, &push, n_);
          s.record_reorder(cmd, push, n_);
        }
        s.record_neighbours(cmd, push, n_);
        s.stamp(cmd, q + 2);
        if (last) {
          s.forces_tensor.dispatch(cmd, &push, n_);
        } else if (s.newton) {
          s.forces_newton.dispatch(cmd, &push, n_);
          gpu::compute_barrier(cmd);
          s.forces_total.dispatch(cmd, &push, n_);
        } else {
          s.forces.dispatch(cmd, &push, n_);
        }
        gpu::compute_barrier(cmd);
        s.stamp(cmd, q + 3);
        s.kick.dispatch(cmd, &push, n_);
        s.stamp(cmd, q + 4);
      }
      s.record_report_copy(cmd);
    });
    if (s.queries) {
      std::vector<uint64_t> t(now * kStamps);
      gpu::check(vkGetQueryPoolResults(s.ctx.device(), s.queries, 0, now * kStamps, t.size() * 8, t.data(), 8,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                 "reading timestamps");
      const double ms = s.ctx.timestamp_period_ns() * 1e-6;
      for (uint32_t k = 0; k < now; ++k) {
        const uint64_t* q = &t[k * kStamps];
        times_.integration_ms += double((q[1] - q[0]) + (q[4] - q[3])) * ms;
        times_.neighbours_ms += double(q[2] - q[1]) * ms;
        times_.forces_ms += double(q[3] - q[2]) * ms;
      }
      times_.timed = true;
    }
    times_.steps += now;
    step_ += now;
    steps -= now;
    s.check_report(step_);
  }
}

Snapshot Simulation::snapshot() const {
  Snapshot s;
  s.step = step_;
  s.pos.resize(4 * size_t(n_));
  s.vel.resize(4 * size_t(n_));
  s.force.resize(4 * size_t(n_));
  s.aux.resize(4 * size_t(n_));
  impl_->pos.download(bytes(s.pos));
  impl_->vel.download(bytes(s.vel));
  impl_->force.download(bytes(s.force));
  impl_->aux.download(bytes(s.aux));
  s.vtilde.resize(4 * size_t(n_));
  impl_->vtilde.download(bytes(s.vtilde));
  s.virial.resize(16 * size_t(n_));
  impl_->virial.download(bytes(s.virial));
  s.image.resize(4 * size_t(n_));
  impl_->image.download(bytes(s.image));  // already by particle id
  // Back to particle-id order.
  const std::vector<uint32_t> ids = impl_->download_ids(n_);
  auto by_id = [&](std::vector<float>& v, size_t width) {
    std::vector<float> out(v.size());
    for (uint32_t slot = 0; slot < n_; ++slot)
      std::copy_n(v.begin() + width * slot, width, out.begin() + width * ids[slot]);
    v.swap(out);
  };
  for (std::vector<float>* v : {&s.pos, &s.vel, &s.force, &s.aux, &s.vtilde}) by_id(*v, 4);
  by_id(s.virial, 16);
  return s;
}

std::vector<std::vector<uint32_t>> Simulation::neighbour_lists(uint32_t capacity) {
  Impl& s = *impl_;
  vksort::Buffer found(s.vk, 4ull * n_ * capacity, "neighbour slots");
  shader::Params p = s.parameters(model_, grid_, n_);
  p.pair_capacity = capacity;
  s.params.upload(std::as_bytes(std::span(&p, 1)));
  s.ctx.submit_and_wait([&](VkCommandBuffer cmd) {
    Push push = s.push(uint32_t(step_));
    push.pairs = found.address();
    s.record_neighbours(cmd, push, n_);
    s.forces.dispatch(cmd, &push, n_);
  });
  p.pair_capacity = 0;
  s.params.upload(std::as_bytes(std::span(&p, 1)));
  std::vector<uint32_t> flat(size_t(n_) * capacity);
  found.download(bytes(flat));
  std::vector<float> aux(4 * size_t(n_));
  s.aux.download(bytes(aux));
  const std::vector<uint32_t> ids = s.download_ids(n_);
  std::vector<std::vector<uint32_t>> out(n_);  // by particle id, holding particle ids
  for (uint32_t slot = 0; slot < n_; ++slot) {
    const uint32_t count = uint32_t(aux[4 * slot]);
    if (count > capacity)
      throw Error("particle " + std::to_string(ids[slot]) + " has " + std::to_string(count) +
                  " neighbours, more than " + std::to_string(capacity));
    std::vector<uint32_t>& list = out[ids[slot]];
    for (uint32_t k = 0; k < count; ++k) list.push_back(ids[flat[size_t(slot) * capacity + k]]);
    std::sort(list.begin(), list.end());
  }
  return out;
}

std::vector<float> Simulation::noise(const std::vector<std::pair<uint32_t, uint32_t>>& pairs, uint32_t step) {
  Impl& s = *impl_;
  const uint32_t count = uint32_t(pairs.size());
  if (count == 0) return {};
  const std::vector<uint32_t> ids = s.download_ids(n_);
  std::vector<uint32_t> slot_of(n_);
  for (uint32_t slot = 0; slot < n_; ++slot) slot_of[ids[slot]] = slot;
  std::vector<uint32_t> flat;  // the kernel takes slots
  for (auto [i, j] : pairs) {
    if (i >= n_ || j >= n_) throw Error("noise: particle id out of range");
    flat.push_back(slot_of[i]);
    flat.push_back(slot_of[j]);
  }
  vksort::Buffer in(s.vk, 8ull * count, "noise pairs"), out(s.vk, 4ull * count, "noise values");
  in.upload(bytes(flat));
  s.ctx.submit_and_wait([&](VkCommandBuffer cmd) {
    Push push = s.push(step);
    push.pairs = in.address();
    push.aux = out.address();
    push.count = count;
    s.noise.dispatch(cmd, &push, count);
  });
  std::vector<float> theta(count);
  out.download(bytes(theta));
  return theta;
}

}  // namespace particles
