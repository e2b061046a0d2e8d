// TeML programs that several feature tests schedule in their own ways.
#pragma once
#include <string>

namespace teml::testing {

// One contraction per element and a copy into v, unscheduled.
inline const std::string kContractAndCopy = R"(A = tensor([N, N])
u = tensor([E, N, N, N])
t = tensor([E, N, N, N])
v = tensor([E, N, N, N])
p = vmul(A, u, [[i, l], [e, l, j, k]])
t = add(t, p, [[e, i, j, k], ] -> [e, i, j, k])
v = eq(t, [e, i, j, k] -> [e, i, j, k])
m1 = build(t)
m2 = build(v)
)";

// The same in blocks of VLEN elements (the element in the lanes), fused over
// blocks, t local to a block and u's block copied into [i][j][k][e]:
// interp's best shape. Ends with `f`, not yet code-generated.
inline const std::string kElementBlocks = kContractAndCopy + R"(m1 = stripmine(m1, 1, VLEN)
m1 = interchange_n(m1, 2, 3)
m1 = vectorize(m1, 5)
m2 = stripmine(m2, 1, VLEN)
f = fuse_outer(m1, m2, 1)
f = local(f, 1, t)
f = var_reorder(f, t, [2, 3, 4, 1])
f = cache(f, 1, u)
f = var_reorder(f, u_cache, [2, 3, 4, 1])
f = parallelize(f, 1)
)";

// A row of t (starting at 1) reduced, then read by out in the same row.
inline const std::string kInitialValueRow = R"(A = tensor([N, N])
B = tensor([N, N])
t = tensor([N, N])
out = tensor([N, N])
init(t, 1)
p = vmul(A, B, [[i, k], [k, j]])
t = add(t, p, [[i, j], ] -> [i, j])
two = scalar()
init(two, 2)
out = mul(t, two, [[i, j], ] -> [i, j])
l1 = build(t)
l2 = build(out)
f = fuse_outer(l1, l2, 2)
)";

}  // namespace teml::testing
