// A tensor's name, element type and shape; program tensors and tensors local
// to a loop are both described this way.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.hpp"

namespace teml::ir {

// Where a tensor's elements live. Program tensors are the caller's (Heap);
// the lowering stage (src/lowering/memory_kinds) chooses for every tensor
// defined inside a program, which front ends and schedules leave Auto.
// On a GPU: global memory (the device's heap), the shared memory of a
// block, and a thread's own registers or local memory (FreeTensor's names).
enum class MemKind { Auto, Heap, Stack, Register, GpuGlobal, GpuShared, GpuLocal };
// "auto", "heap", "stack", "register", "gpu/global", "gpu/shared", "gpu/local"
const char* memKindName(MemKind m);
bool isGpuMemory(MemKind m);
// The kind a schedule or a front end names: "gpu/global", "gpu/shared",
// "gpu/local", or "cpu" (the target's choice: Auto).
std::optional<MemKind> memKindNamed(const std::string& name);

struct TensorDecl {
  std::string name;
  DType dtype = DType::F64;
  std::vector<int64_t> shape;  // empty: a scalar
  MemKind mem = MemKind::Auto;
  int64_t elementCount() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

// The part of a loop-local tensor that one iteration of its loop touches
// (analysis/local_box.hpp): per dimension its first index, in the enclosing
// iterators, and its size.
struct Box {
  bool used = false;              // some access of the tensor lies in the loop
  std::vector<ExprP> offset;
  std::vector<int64_t> extent;
  int64_t elementCount() const {
    int64_t n = 1;
    for (auto e : extent) n *= e;
    return n;
  }
};

// How one of TeML's loop-local tensors starts (ir::VarDef::loopLocal).
struct LoopLocal {
  double init = 0;
  // A cache's copy (schedule::cache): filled from the tensor in every
  // iteration, so iterations may use the same elements.
  bool isCopy = false;
  // Every element an iteration reads is written by that iteration first
  // (a cache's copy-in, or analysis/coverage.hpp proved it), so code
  // generation skips filling the box with `init`.
  bool writtenBeforeRead = false;
  // A cache's copy only: while it is filled, also fetch (into the L2 cache)
  // the box of its tensor this many iterations of its loop ahead (prefetch).
  int prefetchAhead = 0;
  // Written by the lowering stage (src/lowering/local_boxes). It stores only
  // the box: the VarDef's shape becomes the box's extent and its accesses
  // count from the box's corner, which `box` keeps in whole-tensor indices.
  bool boxed = false;
  Box box;
  // Where a prefetching copy's tensor is read `prefetchAhead` iterations
  // later: that many elements further on, over that many bytes.
  int64_t prefetchDistance = 0, prefetchBytes = 0;
};

// A tensor whose values live only within one iteration of a loop: every
// iteration starts with a fresh copy holding `init` everywhere. Until the
// lowering stage its accesses keep the whole tensor's indices.
struct LocalTensor : LoopLocal {
  TensorDecl decl;
  LocalTensor(TensorDecl d, LoopLocal l = {}) : LoopLocal(l), decl(std::move(d)) {}
  bool operator==(const LocalTensor& o) const { return decl.name == o.decl.name; }
};

}  // namespace teml::ir
