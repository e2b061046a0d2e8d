#!/usr/bin/env python3
"""GPU schedules for the device check to time beside each workload's own:
the workload's file (examples/freetensor/NAME.py, examples/cuda/mm.py)
with the body of its `@teml.schedule(f, target="cuda")` function (or its
only schedule) replaced. Candidates that the
emulator and nvcc accept here but no card has timed yet; the device check
(scripts/device_check.sh) times each as `NAME-VARIANT`.

    python3 bench/freetensor/gpu_variants.py DIR    # writes DIR/NAME-VARIANT.py, prints the paths"""
import pathlib
import re
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def longformer(tokens_per_block, y_in_registers):
    # A block per token of a head, one warp, as the file's schedule, or
    # `tokens_per_block` consecutive tokens, one warp each (threadIdx.y): they
    # read mostly the same K and V rows at about the same time, from L1
    # instead of L2; each warp's scores are a multiplexed copy in shared
    # memory. With `y_in_registers`, the lanes' loop of the weighted sum moves
    # outside the window loop (through its branch) and each lane sums its
    # output elements in a register, instead of a load and a store of y in
    # global memory per window position (65 x 16 per lane per token).
    tokens = ('    s.parallelize("Ltoken", "blockIdx.x")\n' if tokens_per_block == 1 else
              f'    blocks, tokens = s.split("Ltoken", {tokens_per_block})\n'
              '    s.parallelize(blocks, "blockIdx.x")\n'
              '    s.parallelize(tokens, "threadIdx.y")\n')
    weighted_sum = ('    s.reorder([lanes, chunks, "Lsum"])\n'
                    '    s.parallelize(lanes, "threadIdx.x")\n'
                    '    s.cache_reduce(chunks, "y")\n' if y_in_registers else
                    '    s.reorder([lanes, chunks])\n'
                    '    s.parallelize(lanes, "threadIdx.x")\n')
    return ('    s.parallelize("Lhead", "blockIdx.y")\n' + tokens +
            '    chunks, lanes = s.split("Ldot", 32)\n'
            '    s.reorder([lanes, chunks])\n'
            '    s.parallelize(lanes, "threadIdx.x")\n'
            '    s.cache_reduce(lanes, "dot")\n'
            '    chunks, lanes = s.split("Lacc", 32)\n' + weighted_sum +
            '    s.auto_schedule()\n')


LONGFORMER = EXAMPLES / "freetensor" / "longformer.py"

# NAME-VARIANT: (the file, the body of its GPU schedule)
VARIANTS = {
    "longformer-yregs": (LONGFORMER, longformer(1, True)),
    "longformer-tokens4": (LONGFORMER, longformer(4, False)),
    "longformer-tokens2-yregs": (LONGFORMER, longformer(2, True)),
    "longformer-tokens4-yregs": (LONGFORMER, longformer(4, True)),
    "longformer-tokens8-yregs": (LONGFORMER, longformer(8, True)),
    # the product handed to cuBLAS (as_lib): FreeTensor's as_matmul on a GPU
    "mm-cublas": (EXAMPLES / "cuda" / "mm.py", '    s.as_lib("Li")\n'),
}


def variant_source(name):
    path, body = VARIANTS[name]
    return with_schedule(path.read_text(), body)


def with_schedule(source, body):
    """`source` with the body of its CUDA schedule function (or its only schedule) replaced by `body`."""
    head = (re.search(r'@teml\.schedule\(\w+, target="cuda"\)\ndef \w+\(s\):\n', source) or
            re.search(r'@teml\.schedule\(\w+\)\ndef \w+\(s\):\n', source))
    if not head:
        raise SystemExit("no @teml.schedule function")
    rest = source[head.end():]
    end = re.search(r"^\S", rest, re.M)  # the next top-level line, if any
    return source[:head.end()] + body + (rest[end.start():] if end else "")


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name in VARIANTS:
        path = out / f"{name}.py"
        path.write_text(variant_source(name))
        print(path)


if __name__ == "__main__":
    main()
