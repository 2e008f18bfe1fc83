// SPDX-License-Identifier: MIT
#include "simulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <span>
#include <string>

#include <vksort/bucket_lists.hpp>
#include <vksort/device.hpp>
#include <vksort/sorter.hpp>

#include "gpu_buffer.hpp"
#include "gpu_bindings.hpp"
#include "gpu_kernel.hpp"
#include "shader_code.hpp"
#include "shaders/dpd_interface.h"

namespace particles {

namespace {
using shader::Push;
static_assert(sizeof(shader::Params) == 38 * 4 + 6 * 8, "Params must match the std430 GLSL block");
static_assert(sizeof(Push) == 5 * 8 + 4 * 4, "Push must match the GLSL push block");
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

// Partners a slot's Verlet list holds: the forward half of the sphere of r_c + skin at the mean
// density, 3 times over (clusters, walls' layering) plus some.
uint32_t list_capacity_for(const Model& m, uint32_t n) {
  if (!m.verlet_list()) return 0;
  const double density = double(n) / (double(m.lx) * m.ly * m.lz);
  const double r = double(m.rc) + m.skin;
  const double half_sphere = density * 2.0 / 3.0 * 3.14159265358979 * r * r * r;
  return uint32_t(std::ceil((3.0 * half_sphere + 16.0) / 8.0)) * 8u;
}

}  // namespace

BufferSizes buffer_sizes(const Model& m, const Grid& g, uint32_t n) {
  BufferSizes b;
  b.vec4 = 16ull * n;
  b.word = 4ull * n;
  b.accum = 24ull * n;
  b.virial = 64ull * n;
  b.starts = 4ull * (uint64_t(g.cells()) + 2);
  const bool verlet = m.verlet_list();
  b.list = verlet ? 4ull * n * list_capacity_for(m, n) : 16;
  b.list_count = verlet ? 4ull * n : 16;
  b.list_origin = verlet ? 16ull * n : 16;
  return b;
}

std::string device_shortfall(const Model& m, uint32_t n, const vksort::DeviceInfo& info) {
  const BufferSizes b = buffer_sizes(m, grid_for(m), n);
  const auto bytes = [](uint64_t x) { return std::to_string(x) + " bytes"; };
  // The largest of each kind first: what binds (the force sums, then the cell starts and the vec4
  // arrays), then what is allocated (the tensor sums, the Verlet list).
  const struct {
    const char* what;
    uint64_t bytes;
    bool bound;
  } buffers[] = {{"fixed-point force sums", b.accum, true},
                 {"cell starts", b.starts, true},
                 {"positions", b.vec4, true},
                 {"pressure tensor sums", b.virial, false},
                 {"neighbour list", b.list, false}};
  for (const auto& buffer : buffers)
    if (buffer.bound && info.max_storage_buffer_range && buffer.bytes > info.max_storage_buffer_range)
      return std::string("the ") + buffer.what + " would take " + bytes(buffer.bytes) +
             ", more than this device binds at once (maxStorageBufferRange " + bytes(info.max_storage_buffer_range) + ")";
  for (const auto& buffer : buffers)
    if (info.max_allocation_size && buffer.bytes > info.max_allocation_size)
      return std::string("the ") + buffer.what + " would take " + bytes(buffer.bytes) +
             ", more than this device allocates at once (maxMemoryAllocationSize " + bytes(info.max_allocation_size) + ")";
  if (info.device_local_bytes && b.total() > info.device_local_bytes)
    return "the particle buffers would take " + bytes(b.total()) + ", more than this device's memory (" +
           bytes(info.device_local_bytes) + ", its largest device-local heap)";
  return {};
}

namespace {

// params_for and, with the Verlet list, its capacity and cut-offs: every word of Params but the addresses.
shader::Params fixed_params(const Model& m, const Grid& g, uint32_t n) {
  shader::Params p = params_for(m, g, n);
  if (m.verlet_list()) {
    p.list_capacity = list_capacity_for(m, n);
    const float edge = m.rc + m.skin;
    p.list_rc2 = edge * edge;
    const float half = list_move_limit(m);
    p.moved2 = half * half;
  }
  return p;
}

// The words of Params before its addresses: the run's fixed parameters, as the kernels' specialization
// constants (gpu::Kernel::first_constant + word).
std::vector<uint32_t> constant_words(const shader::Params& p) {
  constexpr size_t words = offsetof(shader::Params, image) / 4;
  std::vector<uint32_t> w(words);
  std::memcpy(w.data(), &p, 4 * words);
  return w;
}

}  // namespace

struct Simulation::Impl {
  gpu::Context& ctx;
  vksort::Device vk;  // vksort on the app's device (borrowed)
  BufferSizes sz;     // of the buffers below (buffer_sizes)
  vksort::Buffer params, pos, vel, vtilde, force, cell, aux, ids;
  vksort::Buffer image, virial;  // by particle id; per slot, written when a step asks for the tensor
  vksort::Buffer accum;          // per slot: the Newton variant's fixed-point force sums, zero between steps
  vksort::Buffer packed;         // per slot: the position packed for the force walk (cell order)
  // Spatial reordering: (cell id, slot) pairs sorted by vksort's radix sort on the cell id's bits,
  // then gathered into the staging tmp_* and copied back.
  vksort::Buffer keys, perm, iota, tmp_pos, tmp_vel, tmp_vtilde, tmp_ids;
  // Cell order: the first slot of every cell, then the outside-the-box word (dpd_interface.h).
  vksort::Buffer starts;
  gpu::Bindings bindings;  // the per-slot arrays as descriptor set 0 (dpd_interface.h's DPD_BIND_*)
  vksort::BucketLists lists;
  VkDeviceAddress head = 0, next = 0;
  // Params' scalar words, every kernel's specialization constants (shaders/params_constants.glsl).
  std::vector<uint32_t> constants;
  gpu::Kernel cells, move, forces, kick, noise, reorder, starts_kernel;
  gpu::Kernel forces_tensor;  // forces.comp that also sums the pressure tensor (specialization constant 1)
  // forces.comp computing each pair once into `accum`, then forces_total.comp turning the sums into forces.
  gpu::Kernel forces_newton, forces_total;
  bool newton;  // cell order with Model::newton
  vksort::Sorter sorter;  // the spatial reordering's sort
  vksort::Buffer scratch;
  bool cell_order;
  uint32_t cell_count;
  vksort::Buffer report;  // a copy of vksort's report words from the last build of a batch
  // The Verlet list (Model::verlet_list; see dpd_interface.h's Params): partners per slot, their count,
  // positions at the build, the rebuild decision's words.
  bool verlet;
  uint32_t list_capacity;
  vksort::Buffer list, list_count, list_origin, list_control;
  gpu::Kernel list_check, list_decide, reorder_back, forces_list_build, forces_list;
  uint32_t list_builds_seen = 0;  // DPD_LIST_BUILDS when the host last read it
  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t query_capacity = 0;  // steps

  Impl(gpu::Context& c, const Model& m, const Grid& g, uint32_t n)
      : ctx(c),
        vk(c.borrowed()),
        sz(buffer_sizes(m, g, n)),
        params(vk, sizeof(shader::Params), "parameters"),
        pos(vk, sz.vec4, "positions"),
        vel(vk, sz.vec4, "velocities"),
        vtilde(vk, sz.vec4, "dissipative velocities"),
        force(vk, sz.vec4, "forces"),
        cell(vk, sz.word, "cell ids"),
        aux(vk, sz.vec4, "pair statistics"),
        ids(vk, sz.word, "particle ids"),
        image(vk, sz.vec4, "periodic images"),
        virial(vk, sz.virial, "pressure tensor sums"),
        accum(vk, sz.accum, "fixed-point force sums"),
        packed(vk, sz.word, "packed positions"),
        keys(vk, sz.word, "reorder keys"),
        perm(vk, sz.word, "reorder permutation"),
        iota(vk, sz.word, "slot numbers"),
        tmp_pos(vk, sz.vec4, "reordered positions"),
        tmp_vel(vk, sz.vec4, "reordered velocities"),
        tmp_vtilde(vk, sz.vec4, "reordered dissipative velocities"),
        tmp_ids(vk, sz.word, "reordered ids"),
        starts(vk, sz.starts, "cell starts"),
        bindings(c, binding_buffers()),
        lists(vk, bucket_options(m, g, n)),
        constants(constant_words(fixed_params(m, g, n))),
        cells(c, bindings, shader_code("cells"), sizeof(Push), "cells", 0, constants),
        move(c, bindings, shader_code("move"), sizeof(Push), "move", 0, constants),
        forces(c, bindings, shader_code(forces_source(c)), sizeof(Push), "forces", 0, constants),
        kick(c, bindings, shader_code("kick"), sizeof(Push), "kick", 0, constants),
        noise(c, bindings, shader_code("noise"), sizeof(Push), "noise", 0, constants),
        reorder(c, bindings, shader_code("reorder"), sizeof(Push), "reorder", 0, constants),
        starts_kernel(c, bindings, shader_code("starts"), sizeof(Push), "starts", 0, constants),
        forces_tensor(c, bindings, shader_code(forces_source(c)), sizeof(Push), "forces with the pressure tensor", DPD_FORCES_TENSOR, constants),
        forces_newton(c, bindings, shader_code(forces_source(c)), sizeof(Push), "forces, each pair once", DPD_FORCES_NEWTON, constants),
        forces_total(c, bindings, shader_code("forces_total"), sizeof(Push), "force totals", 0, constants),
        newton(m.layout == Layout::cell_order && m.newton),
        sorter(vk, sort_options(g)),
        scratch(vk, std::max(sorter.scratch_bytes(n), m.verlet_list() ? sorter.scratch_bytes_indirect(n) : 0),
                "reorder scratch"),
        cell_order(m.layout == Layout::cell_order),
        cell_count(g.cells()),
        report(vk, vksort::BucketLists::report_bytes, "bucket report"),
        verlet(m.verlet_list()),
        list_capacity(list_capacity_for(m, n)),
        list(vk, sz.list, "neighbour list"),
        list_count(vk, sz.list_count, "neighbour list counts"),
        list_origin(vk, sz.list_origin, "neighbour list origins"),
        list_control(vk, 4 * DPD_LIST_WORDS, "neighbour list control"),
        list_check(c, bindings, shader_code("list_check"), sizeof(Push), "list_check", 0, constants),
        list_decide(c, bindings, shader_code("list_decide"), sizeof(Push), "list_decide", 0, constants),
        reorder_back(c, bindings, shader_code("reorder_back"), sizeof(Push), "reorder_back", 0, constants),
        forces_list_build(c, bindings, shader_code(forces_source(c)), sizeof(Push), "neighbour list build", DPD_FORCES_LIST_BUILD, constants),
        forces_list(c, bindings, shader_code(forces_source(c)), sizeof(Push), "forces from the neighbour list", DPD_FORCES_LIST, constants) {
    head = gpu::address_of(c, lists.head());
    next = gpu::address_of(c, lists.next());
  }
  // The buffers of bindings DPD_BIND_* in order.
  std::vector<gpu::Bindings::Buffer> binding_buffers() const {
    std::vector<gpu::Bindings::Buffer> b(DPD_BIND_COUNT);
    const auto set = [&](uint32_t k, const vksort::Buffer& buffer, const char* what) {
      b[k] = {buffer.vk_buffer(), buffer.size(), what};
    };
    set(DPD_BIND_POS, pos, "positions");
    set(DPD_BIND_VEL, vel, "velocities");
    set(DPD_BIND_VTILDE, vtilde, "dissipative velocities");
    set(DPD_BIND_FORCE, force, "forces");
    set(DPD_BIND_IDS, ids, "particle ids");
    set(DPD_BIND_CELL, cell, "cell ids");
    set(DPD_BIND_PACKED, packed, "packed positions");
    set(DPD_BIND_ACCUM, accum, "fixed-point force sums");
    set(DPD_BIND_PERM, perm, "reorder permutation");
    set(DPD_BIND_STARTS, starts, "cell starts");
    set(DPD_BIND_AUX, aux, "pair statistics");
    set(DPD_BIND_TMP_POS, tmp_pos, "reordered positions");
    set(DPD_BIND_TMP_VEL, tmp_vel, "reordered velocities");
    set(DPD_BIND_TMP_VTILDE, tmp_vtilde, "reordered dissipative velocities");
    set(DPD_BIND_TMP_IDS, tmp_ids, "reordered ids");
    return b;
  }
  ~Impl() {
    if (queries) vkDestroyQueryPool(ctx.device(), queries, nullptr);
  }

  // forces.comp as built for this device: with 64-bit atomics for the Newton variants' sums where it has them.
  static std::string_view forces_source(const gpu::Context& c) { return c.atomic64() ? "forces_atomic64" : "forces"; }

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
    shader::Params p = fixed_params(m, g, n);
    p.image = image.address();
    p.virial = virial.address();
    if (verlet) {
      p.list = list.address();
      p.list_count = list_count.address();
      p.list_origin = list_origin.address();
      p.list_control = list_control.address();
    }
    return p;
  }

  Push push(uint32_t step) const {
    Push p{};
    p.params = params.address();
    p.head = head;
    p.next = next;
    p.step = step;
    p.flags = cell_order ? DPD_PUSH_CELL_ORDER : 0u;
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
  // vksort's lists over the cells; leaves what the force kernel walks visible to it. With the Verlet
  // list, all that and the list's build only when it is due or `rebuild` asks (record_list).
  void record_neighbours(VkCommandBuffer cmd, const Push& p, uint32_t n, bool rebuild = true) {
    if (verlet) {
      record_list(cmd, p, n, rebuild);
      return;
    }
    cells.dispatch(cmd, &p, n);
    if (cell_order) {
      record_reorder(cmd, p, n);
      starts_kernel.dispatch(cmd, &p, n);
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
    gpu::compute_transfer_barrier(cmd);  // cell ids written; earlier uses of keys, perm, tmp_* done
    const VkBufferCopy whole{0, 0, words};
    vkCmdCopyBuffer(cmd, cell.vk_buffer(), keys.vk_buffer(), 1, &whole);
    vkCmdCopyBuffer(cmd, iota.vk_buffer(), perm.vk_buffer(), 1, &whole);
    gpu::compute_transfer_barrier(cmd);  // vksort's contract: keys and values visible to COMPUTE
    vksort::Status st = sorter.record(cmd, {.keys = keys.ref(), .values = perm.ref(), .scratch = scratch.ref()}, n);
    if (!st) throw Error("recording the spatial sort: " + st.message);
    gpu::compute_barrier(cmd);
    reorder.dispatch(cmd, &p, n);
    gpu::compute_transfer_barrier(cmd);
    const VkBufferCopy all_vec4s{0, 0, vec4s};
    vkCmdCopyBuffer(cmd, tmp_pos.vk_buffer(), pos.vk_buffer(), 1, &all_vec4s);
    vkCmdCopyBuffer(cmd, tmp_vel.vk_buffer(), vel.vk_buffer(), 1, &all_vec4s);
    vkCmdCopyBuffer(cmd, tmp_vtilde.vk_buffer(), vtilde.vk_buffer(), 1, &all_vec4s);
    vkCmdCopyBuffer(cmd, tmp_ids.vk_buffer(), ids.vk_buffer(), 1, &whole);
    vkCmdCopyBuffer(cmd, keys.vk_buffer(), cell.vk_buffer(), 1, &whole);  // the sorted keys are the new slots' cells
    gpu::compute_transfer_barrier(cmd);
  }

  // The Verlet list's step: whether it is due (list_check, list_decide), then the rebuild's passes,
  // all dispatched indirectly with the groups list_decide wrote (none on a step without a rebuild):
  // cell ids, the spatial sort (its key count from list_decide too), the reorder, the cell starts and
  // the list itself, which also sums the step's forces into accum (the steps without a rebuild take
  // them from the list: record_list_forces). `rebuild` forces one without forces (the steps that walk
  // the cells: the initial forces, the pressure tensor's step, the test hooks).
  void record_list(VkCommandBuffer cmd, Push p, uint32_t n, bool rebuild) {
    if (!rebuild) {
      list_check.dispatch(cmd, &p, n);
      gpu::compute_barrier(cmd);
    }
    p.count = rebuild ? 1u : 0u;
    list_decide.dispatch(cmd, &p, 1);
    p.count = 0;
    gpu::compute_indirect_barrier(cmd);
    const VkBuffer args = list_control.vk_buffer();
    const VkDeviceSize items = 4 * DPD_LIST_ITEMS_ARGS;
    p.flags |= DPD_PUSH_SLOTS;  // cells.comp sets the sort's values: slot numbers
    cells.dispatch_indirect(cmd, &p, args, items);
    gpu::compute_barrier(cmd);
    const vksort::BufferRef count{list_control.vk_buffer(), 4 * DPD_LIST_SORT_COUNT, 4};
    vksort::Status st =
        sorter.record_indirect(cmd, {.keys = cell.ref(), .values = perm.ref(), .scratch = scratch.ref()}, count, n);
    if (!st) throw Error("recording the spatial sort: " + st.message);
    gpu::compute_barrier(cmd);
    reorder.dispatch_indirect(cmd, &p, args, items);
    gpu::compute_barrier(cmd);
    reorder_back.dispatch_indirect(cmd, &p, args, items);
    gpu::compute_barrier(cmd);
    starts_kernel.dispatch_indirect(cmd, &p, args, items);
    gpu::compute_barrier(cmd);
    p.count = rebuild ? 1u : 0u;  // a forced rebuild's step computes its forces otherwise
    forces_list_build.dispatch_indirect(cmd, &p, args, items);
    gpu::compute_barrier(cmd);
  }

  // A step's forces after record_list: from the list unless this step rebuilt it (then the build has
  // summed them), then the sums turned into forces.
  void record_list_forces(VkCommandBuffer cmd, const Push& p, uint32_t n) {
    forces_list.dispatch_indirect(cmd, &p, list_control.vk_buffer(), 4 * DPD_LIST_REUSE_ARGS);
    gpu::compute_barrier(cmd);
    forces_total.dispatch(cmd, &p, n);
  }

  // The rebuild's group counts (list_decide copies them on a rebuild step), nothing pending.
  void init_list_control(uint32_t n) {
    std::vector<uint32_t> words(DPD_LIST_WORDS, 0);
    const std::array<uint32_t, 3> a = reorder.groups(n);
    std::copy(a.begin(), a.end(), words.begin() + DPD_LIST_ITEMS_FULL);
    list_control.upload(bytes(words));
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
    check_outside(step);  // first: a blown-up run also overfills the list
    if (verlet) {
      std::vector<uint32_t> most(1);
      list_control.download(bytes(most), 4 * DPD_LIST_MOST);
      if (most[0] != 0)
        throw Error("by step " + std::to_string(step) + " a particle had " + std::to_string(most[0]) +
                    " neighbour list partners, more than its capacity of " + std::to_string(list_capacity) +
                    " (a dense cluster); use a smaller --skin or --neighbours cells");
    }
  }

  void check_outside(uint64_t step) const {
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
  check_state(model_, initial);
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
  impl_->init_list_control(n_);
  // Initial forces F(0) (or F at the restart's step): the first move's half kick needs them.
  ctx.submit_and_wait([&](VkCommandBuffer cmd) {
    const Push push = impl_->push(uint32_t(step_));
    impl_->record_neighbours(cmd, push, n_);
    impl_->forces_tensor.dispatch(cmd, &push, n_);
    impl_->record_report_copy(cmd);
  });
  impl_->check_report(0);
  if (impl_->verlet) {  // that build was the initial forces', not a step's
    std::vector<uint32_t> builds(1);
    impl_->list_control.download(bytes(builds), 4 * DPD_LIST_BUILDS);
    impl_->list_builds_seen = builds[0];
  }
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
        s.record_neighbours(cmd, push, n_, last);  // the tensor's step walks the cells
        s.stamp(cmd, q + 2);
        if (last) {
          s.forces_tensor.dispatch(cmd, &push, n_);
        } else if (s.verlet) {
          s.record_list_forces(cmd, push, n_);
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
    if (s.verlet) {
      std::vector<uint32_t> builds(1);
      s.list_control.download(bytes(builds), 4 * DPD_LIST_BUILDS);
      times_.list_builds += builds[0] - s.list_builds_seen;
      s.list_builds_seen = builds[0];
    }
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
    push.noise = out.address();
    push.count = count;
    s.noise.dispatch(cmd, &push, count);
  });
  std::vector<float> theta(count);
  out.download(bytes(theta));
  return theta;
}

}  // namespace particles
