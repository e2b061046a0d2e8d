// Selective materialisation (FreeTensor, Section 5.2): a tensor defined
// inside the program (a VarDef: each iteration of the loops around it has a
// version of its own) is either recomputed in the backward pass, in its
// scope, or stored by the forward pass into a tape, a program tensor with one
// leading dimension per loop around the definition (the versions), and
// loaded back. `none` recomputes every such tensor, `all` stores every one
// whose loops have constant trip counts, `auto` stores one only when
// recomputing a version costs more operations than writing it to the tape
// and reading it back (about 1 operation per byte for a tape that stays in
// the caches, 3 per byte beyond; an element counts at least a float's 4
// bytes). No tape takes more than 1 GiB.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::autodiff {

enum class TapeMode { Auto, All, None };
// "auto", "all" or "none" (--tapes; teml.grad(tapes=...)); UsageError otherwise.
TapeMode tapeModeNamed(const std::string& name);

struct TapeLoop {
  std::string var;
  int64_t begin = 0, step = 1, trips = 0;
};

struct TapeChoice {
  bool stored = false;
  std::string tape;             // the program tensor holding the versions (stored)
  std::vector<TapeLoop> loops;  // around the definition, outermost first
  std::string why;              // for -v
  // A tensor outside every loop has one version: it lives in its tape in
  // both passes, with no copies.
  bool inPlace() const { return stored && loops.empty(); }
};

// for e0 in [0, shape[0]) ...: body(element, tag) -- a nest over every
// element of a tensor of `shape`, its iterators `prefix.e0`, ...; the tag
// names them (its id is `prefix`).
ir::StmtP overElements(const std::string& prefix, const std::vector<int64_t>& shape,
                       const std::function<ir::StmtP(const std::vector<ir::ExprP>&, ir::StmtTag)>& body);

// The version a loop's iteration is: its iterator counted from the loop's
// start. False for a loop whose trip count is not constant or whose step is
// not 1 or -1.
bool tapeLoop(const ir::For& f, TapeLoop* out);
// The version the iterations of `loops` are, one index per loop.
std::vector<ir::ExprP> versionOf(const std::vector<TapeLoop>& loops);

// The operations an expression costs (arithmetic, selections).
int64_t operationsIn(const ir::ExprP& e);
// What writing one version of `elements` elements of `dtype` to a tape of
// `tapeBytes` and reading it back costs, in operations.
double tapeTraffic(double tapeBytes, int64_t elements, ir::DType dtype);

// One choice per tensor defined inside the program, by name. A tensor in
// `mustStore` is stored whatever the mode (its statements read values that
// are overwritten afterwards: recomputing them would read the new values),
// or refused when it cannot be.
std::map<std::string, TapeChoice> chooseTapes(const ir::Program& p, TapeMode mode,
                                              const std::set<std::string>& mustStore = {});

// The forward program that also fills the tapes (each stored tensor copied
// into its tape at the end of its scope, or kept there: inPlace), with the
// tape tensors declared.
ir::Program recordTapes(const ir::Program& p, const std::map<std::string, TapeChoice>& tapes);

// The scope of `local` in the backward pass, around `adjoints`: the copy back
// from the tape (the loops around it have the forward's iterators), or the
// adjoints reading the tape itself (inPlace).
ir::StmtP withTape(const ir::TensorDecl& local, const TapeChoice& choice, const ir::StmtP& adjoints);

}  // namespace teml::autodiff
