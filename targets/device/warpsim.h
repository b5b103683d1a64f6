// warpsim.h: the part of CUDA C++ a difftest translation uses, on the CPU, so that the
// translation can be run (and its mistakes caught) without an NVIDIA GPU.
//
// Each thread of a block is a fiber (ucontext) with a stack of its own; the block's
// threads run one at a time, each until it reaches a warp operation or ends. A warp
// operation follows the CUDA C++ Programming Guide and the PTX ISA for sm_70 and later
// (independent thread scheduling): the calling thread must be in its member mask; it waits
// until every non-exited thread the mask names has reached the same operation (the same
// kind, the same mask, the same source line) and then all of them complete it together.
// Threads that never exist in a partial warp (index >= blockDim.x) count as exited.
// A block of more than 32 threads is warps of 32 (thread i is lane i % 32 of warp i / 32).
// __syncthreads() waits until every non-exited thread of the block waits at the same
// __syncthreads() (PTX ISA, `exit`: a thread that exited does not hold a barrier up);
// threads at different ones, or a barrier waiting for a thread that waits at a warp
// operation, are the errors the guide leaves undefined (divergent __syncthreads()).
// __shared__ arrays are static: one instance, which the blocks use one after another.
// Anything else is what the guide leaves undefined, and the simulator stops the launch
// saying what happened: a mask without the caller, threads of one mask waiting at
// different operations, or threads waiting for others that will never come (deadlock).
// Which thread runs next is drawn from a seeded generator (the guide promises no order),
// and __activemask() names the calling thread alone (it may: the guide promises only that
// it names the threads currently converged with it). A shuffle from a thread that is not
// taking part returns a poison value, as undefined values are.
//
// Blocks run one after another; global memory is plain memory, and atomics are plain
// read-modify-writes (one OS thread runs everything).
#pragma once
#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

// CUDA's float intrinsics the translation uses: the bits of a float and back, the
// fused multiply-add rounded once (C's fmaf is, in glibc, on any CPU), and f64 to f32
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, sizeof i); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, sizeof x); return x; }
inline float __fmaf_rn(float a, float b, float c) { return std::fmaf(a, b, c); }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, sizeof i); return i; }
inline double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, sizeof x); return x; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
// a double rounded to the nearest float (an infinity past the range, as IEEE says; g++
// on x86-64 rounds so in SSE's default mode)
inline float __double2float_rn(double x) { return static_cast<float>(x); }

struct dim3 {
  unsigned x, y, z;
};

namespace warpsim {

enum Op { BALLOT = 1, ANY, ALL, SHFL, REDUCE_ADD, REDUCE_MIN, REDUCE_MAX, REDUCE_UMIN,
          REDUCE_UMAX, SYNCWARP, BARRIER };
static const char* const OP_NAMES[] = {"?", "__ballot_sync", "__any_sync", "__all_sync",
                                       "__shfl_sync", "__reduce_add_sync",
                                       "__reduce_min_sync", "__reduce_max_sync",
                                       "__reduce_min_sync", "__reduce_max_sync",
                                       "__syncwarp", "__syncthreads()"};
static const uint64_t POISON = 0x5a5a5a5a5a5a5a5aull;
static const size_t STACK = 512 * 1024;

struct Thread {
  ucontext_t context;
  dim3 index;
  bool done = false, waiting = false;
  int op = 0, site = 0, source = 0;
  unsigned mask = 0;
  uint64_t value = 0, result = 0;
};

struct State {
  std::vector<Thread> threads;
  std::vector<std::unique_ptr<char[]>> stacks;
  ucontext_t scheduler;
  int current = 0;
  dim3 block_dim{1, 1, 1}, grid_dim{1, 1, 1}, block_index{0, 0, 0};
  std::string error;
  uint64_t rng = 1;
  std::function<void()> kernel;
};

inline State S;

inline uint64_t next_random() {  // splitmix64
  uint64_t z = (S.rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline void fail(const std::string& what) {
  if (S.error.empty()) {
    char where[96];
    snprintf(where, sizeof where, " (block %u)", S.block_index.x);
    S.error = what + where;
  }
}

inline std::string describe(const Thread& t) {
  char text[160];
  if (t.op == BARRIER)
    snprintf(text, sizeof text, "__syncthreads() at line %d", t.site);
  else
    snprintf(text, sizeof text, "%s with mask 0x%x at line %d", OP_NAMES[t.op], t.mask,
             t.site);
  return text;
}

// the calling thread reaches warp operation `op`: wait for its group, return the result
inline uint64_t sync(int op, unsigned mask, uint64_t value, int source, int site) {
  Thread& t = S.threads[S.current];
  int lane = S.current & 31;
  if (op != BARRIER && !((mask >> lane) & 1u)) {
    char text[200];
    snprintf(text, sizeof text, "lane %d calls %s at line %d with member mask 0x%x, "
             "which leaves it out", lane, OP_NAMES[op], site, mask);
    fail(text);
  }
  t.op = op;
  t.mask = mask;
  t.value = value;
  t.source = source;
  t.site = site;
  t.waiting = true;
  swapcontext(&t.context, &S.scheduler);
  return t.result;
}

inline bool named(unsigned mask, int lane) { return lane < 32 && ((mask >> lane) & 1u); }

// the block's barrier: completes when every non-exited thread waits at a __syncthreads()
// (all at the same one, else the launch fails)
inline bool complete_barrier(int first) {
  Thread& w = S.threads[first];
  for (Thread& o : S.threads) {
    if (o.done) continue;
    if (!o.waiting || o.op != BARRIER) return false;
  }
  for (Thread& o : S.threads) {
    if (o.done) continue;
    if (o.site != w.site) {
      fail("threads of one block wait at different barriers: " + describe(w) + " and " +
           describe(o));
      return false;
    }
  }
  for (Thread& o : S.threads) o.waiting = false;
  return true;
}

// whether the group lane `first` waits with can complete now (every non-exited thread
// of its mask, in its warp, waits at the same operation); completes it if so
inline bool complete(int first) {
  Thread& w = S.threads[first];
  if (w.op == BARRIER) return complete_barrier(first);
  int base = first & ~31;
  int n = std::min((int)S.threads.size() - base, 32);
  Thread* warp = &S.threads[base];
  for (int j = 0; j < n; j++) {
    Thread& o = warp[j];
    if (!named(w.mask, j) || o.done) continue;
    if (!o.waiting) return false;
    if (o.op != w.op || o.mask != w.mask || o.site != w.site) return false;
  }
  unsigned here = 0;
  for (int j = 0; j < n; j++)
    if (named(w.mask, j) && !warp[j].done) here |= 1u << j;
  uint64_t acc = 0;
  int64_t smin = INT32_MAX, smax = INT32_MIN;
  uint64_t umin = UINT32_MAX, umax = 0;
  unsigned votes = 0;
  for (int j = 0; j < n; j++) {
    if (!((here >> j) & 1u)) continue;
    uint64_t v = warp[j].value;
    if (v) votes |= 1u << j;
    acc += (uint32_t)v;
    int32_t sv = (int32_t)(uint32_t)v;
    if (sv < smin) smin = sv;
    if (sv > smax) smax = sv;
    if ((uint32_t)v < umin) umin = (uint32_t)v;
    if ((uint32_t)v > umax) umax = (uint32_t)v;
  }
  for (int j = 0; j < n; j++) {
    if (!((here >> j) & 1u)) continue;
    Thread& t = warp[j];
    switch (t.op) {
      case BALLOT: t.result = votes; break;
      case ANY: t.result = votes != 0; break;
      case ALL: t.result = votes == here; break;
      case SHFL: {
        int from = t.source & 31;
        t.result = ((here >> from) & 1u) ? warp[from].value : POISON;
        break;
      }
      case REDUCE_ADD: t.result = (uint32_t)acc; break;
      case REDUCE_MIN: t.result = (uint32_t)(int32_t)smin; break;
      case REDUCE_MAX: t.result = (uint32_t)(int32_t)smax; break;
      case REDUCE_UMIN: t.result = umin; break;
      case REDUCE_UMAX: t.result = umax; break;
      default: t.result = 0;
    }
    t.waiting = false;
  }
  return true;
}

inline void start(unsigned low, unsigned high) {
  (void)low;
  (void)high;
  S.kernel();
  S.threads[S.current].done = true;
  swapcontext(&S.threads[S.current].context, &S.scheduler);
}

inline void run_block(unsigned count) {
  S.threads.assign(count, Thread());
  while (S.stacks.size() < count) S.stacks.emplace_back(new char[STACK]);
  for (unsigned i = 0; i < count; i++) {
    Thread& t = S.threads[i];
    t.index = dim3{i, 0, 0};
    getcontext(&t.context);
    t.context.uc_stack.ss_sp = S.stacks[i].get();
    t.context.uc_stack.ss_size = STACK;
    t.context.uc_link = nullptr;
    makecontext(&t.context, (void (*)())start, 2, 0u, 0u);
  }
  // A warp runs as far as it can (its threads in a seeded order, its warp operations
  // completed as they meet) before another is picked: warps drift apart as far as CUDA
  // lets them, so a barrier missing between them shows.
  unsigned warps = (count + 31) / 32;
  std::vector<int> order, warp_order(warps);
  auto run_warp = [&](unsigned wv) -> bool {
    unsigned base = wv * 32, end = std::min(count, base + 32);
    bool any = false;
    for (;;) {
      bool step = false;
      order.clear();
      for (unsigned i = base; i < end; i++) order.push_back((int)i);
      for (size_t i = order.size(); i > 1; i--)
        std::swap(order[i - 1], order[next_random() % i]);
      for (int i : order) {
        Thread& t = S.threads[i];
        if (t.done || t.waiting) continue;
        S.current = i;
        swapcontext(&S.scheduler, &t.context);
        step = true;
        if (!S.error.empty()) return true;
      }
      for (unsigned i = base; i < end; i++)
        if (S.threads[i].waiting && S.threads[i].op != BARRIER && complete((int)i))
          step = true;
      if (!step) return any;
      any = true;
    }
  };
  while (S.error.empty()) {
    for (unsigned i = 0; i < warps; i++) warp_order[i] = (int)i;
    for (unsigned i = warps; i > 1; i--)
      std::swap(warp_order[i - 1], warp_order[next_random() % i]);
    bool progress = false;
    for (int wv : warp_order)
      if (run_warp((unsigned)wv)) {
        progress = true;
        break;
      }
    if (!S.error.empty()) return;
    for (unsigned i = 0; i < count && !progress; i++)
      if (S.threads[i].waiting && S.threads[i].op == BARRIER) {
        progress = complete((int)i);
        break;
      }
    if (!S.error.empty()) return;
    if (progress) continue;
    bool all_done = true;
    for (unsigned i = 0; i < count; i++) all_done = all_done && S.threads[i].done;
    if (all_done) return;
    for (unsigned i = 0; i < count; i++) {  // stuck: say which wait cannot end, and why
      Thread& w = S.threads[i];
      if (!w.waiting) continue;
      for (unsigned j = 0; j < count; j++) {
        Thread& o = S.threads[j];
        bool waited_for = w.op == BARRIER ? o.op != BARRIER
                                          : (j & ~31u) == (i & ~31u) && named(w.mask, j & 31);
        if (!waited_for || o.done || j == i) continue;
        std::string who = count > 32 || w.op == BARRIER ? "thread " : "lane ";
        fail(who + std::to_string(i) + " waits at " + describe(w) + " for " + who +
             std::to_string(j) + ", which " +
             (o.waiting ? "waits at " + describe(o) : std::string("runs on")));
        return;
      }
    }
    fail("the threads wait for each other forever");
  }
}

// runs `kernel` for `blocks` blocks of `threads` threads; "" or what went wrong
inline std::string launch(unsigned blocks, unsigned threads, uint64_t seed,
                          std::function<void()> kernel) {
  S.error.clear();
  S.rng = seed;
  S.kernel = std::move(kernel);
  S.block_dim = dim3{threads, 1, 1};
  S.grid_dim = dim3{blocks, 1, 1};
  for (unsigned b = 0; b < blocks && S.error.empty(); b++) {
    S.block_index = dim3{b, 0, 0};
    run_block(threads);
  }
  return S.error;
}

template <typename T>
inline uint64_t bits(T v) {
  uint64_t out = 0;
  memcpy(&out, &v, sizeof(T));
  return out;
}

template <typename T>
inline T from_bits(uint64_t b) {
  T out;
  memcpy(&out, &b, sizeof(T));
  return out;
}

template <typename T>
inline T shfl(int site, unsigned mask, T var, int source, int width = 32) {
  static_assert(sizeof(T) <= 8, "a shuffle moves at most 64 bits");
  (void)width;
  return from_bits<T>(sync(SHFL, mask, bits(var), source, site));
}

}  // namespace warpsim

#define threadIdx (warpsim::S.threads[warpsim::S.current].index)
#define blockIdx (warpsim::S.block_index)
#define blockDim (warpsim::S.block_dim)
#define gridDim (warpsim::S.grid_dim)
#define warpSize 32

#define __ballot_sync(mask, pred) \
  ((unsigned)warpsim::sync(warpsim::BALLOT, (mask), (pred) ? 1 : 0, 0, __LINE__))
#define __any_sync(mask, pred) \
  ((int)warpsim::sync(warpsim::ANY, (mask), (pred) ? 1 : 0, 0, __LINE__))
#define __all_sync(mask, pred) \
  ((int)warpsim::sync(warpsim::ALL, (mask), (pred) ? 1 : 0, 0, __LINE__))
#define __shfl_sync(mask, var, ...) warpsim::shfl(__LINE__, (mask), (var), __VA_ARGS__)
#define __reduce_add_sync(mask, value) \
  ((unsigned)warpsim::sync(warpsim::REDUCE_ADD, (mask), (uint32_t)(value), 0, __LINE__))
#define __syncwarp(mask) ((void)warpsim::sync(warpsim::SYNCWARP, (mask), 0, 0, __LINE__))

inline int __reduce_min_sync_at(int site, unsigned mask, int value) {
  return (int)warpsim::sync(warpsim::REDUCE_MIN, mask, (uint32_t)value, 0, site);
}
inline unsigned __reduce_min_sync_at(int site, unsigned mask, unsigned value) {
  return (unsigned)warpsim::sync(warpsim::REDUCE_UMIN, mask, value, 0, site);
}
inline int __reduce_max_sync_at(int site, unsigned mask, int value) {
  return (int)warpsim::sync(warpsim::REDUCE_MAX, mask, (uint32_t)value, 0, site);
}
inline unsigned __reduce_max_sync_at(int site, unsigned mask, unsigned value) {
  return (unsigned)warpsim::sync(warpsim::REDUCE_UMAX, mask, value, 0, site);
}
#define __reduce_min_sync(mask, value) __reduce_min_sync_at(__LINE__, (mask), (value))
#define __reduce_max_sync(mask, value) __reduce_max_sync_at(__LINE__, (mask), (value))

inline unsigned __activemask() { return 1u << (warpsim::S.current & 31); }
#define __syncthreads() ((void)warpsim::sync(warpsim::BARRIER, 0u, 0, 0, __LINE__))
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
// the integer intrinsics CUDA's math API defines, as it defines them (of 0: __clz 32,
// __clzll 64, __ffs 0)
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
inline unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; i++) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
inline unsigned __brev(unsigned x) { return (unsigned)(__brevll(x) >> 32); }
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  unsigned old = *p;
  *p = old + v;
  return old;
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  unsigned long long old = *p;
  *p = old + v;
  return old;
}
// The rest of the atomics the CUDA translation calls, for the types the guide gives
// each (read-modify-writes: nothing switches threads inside one).
inline int atomicAdd(int* p, int v) {
  return (int)atomicAdd((unsigned*)p, (unsigned)v);
}
#define WARPSIM_ATOMIC(NAME, T, EXPR)   \
  inline T NAME(T* p, T v) {            \
    T old = *p;                         \
    *p = (EXPR);                        \
    return old;                         \
  }
#define WARPSIM_ATOMICS(T)                                          \
  WARPSIM_ATOMIC(atomicMin, T, v < old ? v : old)                   \
  WARPSIM_ATOMIC(atomicMax, T, v > old ? v : old)                   \
  WARPSIM_ATOMIC(atomicExch, T, v)                                  \
  inline T atomicCAS(T* p, T compare, T v) {                        \
    T old = *p;                                                     \
    *p = old == compare ? v : old;                                  \
    return old;                                                     \
  }
WARPSIM_ATOMICS(int)
WARPSIM_ATOMICS(unsigned)
WARPSIM_ATOMICS(long long)
WARPSIM_ATOMICS(unsigned long long)
#define WARPSIM_BITWISE(T)                        \
  WARPSIM_ATOMIC(atomicAnd, T, old & v)           \
  WARPSIM_ATOMIC(atomicOr, T, old | v)            \
  WARPSIM_ATOMIC(atomicXor, T, old ^ v)
WARPSIM_BITWISE(int)
WARPSIM_BITWISE(unsigned)
WARPSIM_BITWISE(unsigned long long)
