// Blocks of tokens that share their windows' rows. Sliding-window attention
// as FreeTensor writes it (Longformer)
//   for j in range(N):
//       for t in range(-w, w + 1):
//           if 0 <= j + t < N:
//               dot[t + w] = 0
//               for p in range(F): dot[t + w] += q[j, p] * k[j + t, p]
//       ... softmax of dot ...
//       for t in range(-w, w + 1):
//           if 0 <= j + t < N:
//               for p in range(F): y[j, p] += attn[t + w] * v[j + t, p]
// reads the 2w + 1 rows of K and V around each token from the L2 cache
// again for every token: token j + 1 shares 2w of them. Here the tokens go
// in blocks of kTokensInABlock; each window loop becomes a loop of its own
// in its block (fission), is skewed by the token's place in the block and
// goes outside it (interchange_skewed: the block's union of rows, each
// once); separate_interior then sets apart the blocks away from the
// sequence's ends (no bounds check) and, in each window, the rows in every
// token's window (the token loop's trip count constant), whose tokens are
// unrolled into the feature loop: a row of K loaded once for the block's
// dot products (their sums side by side in registers), a row of V once for
// the block's weighted rows (32 features of each token's row in registers
// across the window). A select on an outer iterator in the row's index
// (Longformer's dilation, 4 on two heads of eight) is set apart first: the
// part where the row is j + t gets the blocks. Longformer at 4096 tokens,
// 512 features, one thread (AMD EPYC, Zen 4): docs/auto-schedule.md.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoWindowBlocks(AutoState& state);

}  // namespace teml::autoschedule
