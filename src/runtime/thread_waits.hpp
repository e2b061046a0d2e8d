// How long OpenMP's waiting threads spin before they sleep.
#pragma once

namespace teml::runtime {

// libgomp spins up to GOMP_SPINCOUNT (default 300,000 pauses, several
// milliseconds) before a waiting thread sleeps. When other processes share
// the cores, a spinning thread holds a core its partner needs, and a
// parallel kernel of a millisecond took 8 ms, for PyTorch's too
// (docs/python.md, "Threads"). Sets GOMP_SPINCOUNT=3000 (tens of
// microseconds), unless the user chose OMP_WAIT_POLICY or GOMP_SPINCOUNT.
// libgomp reads them once, when it loads: call before the first kernel is
// loaded; a process that loaded libgomp earlier (PyTorch imported first)
// keeps what it read then.
void preferShortSpinWaits();

}  // namespace teml::runtime
