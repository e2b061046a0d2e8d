"""The paper's four workloads (examples/freetensor/, with their hand
schedules) at small sizes compute what independent NumPy versions compute."""
import importlib.util

import numpy as np
import pytest

from conftest import EXAMPLES


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_inputs = load("make_inputs")
reference = load("reference")


@pytest.mark.parametrize("name,output", [("subdivnet", "y"), ("longformer", "y"), ("softras", "prob"), ("gat", "y")])
def test_workload_matches_numpy(teml, name, output):
    inputs = make_inputs.WORKLOADS[name](np.random.default_rng(5), small=True)
    got = teml.run(EXAMPLES / f"{name}.py", inputs, [output])[output]
    want = getattr(reference, name)(**inputs)
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)


def test_generated_inputs_are_the_sizes_the_issue_asks_for():
    rng = np.random.default_rng(0)
    mesh = make_inputs.subdivnet(rng)
    assert mesh["adj"].shape[0] >= 20000
    adj = mesh["adj"]
    assert all(g in adj[adj[g]].ravel() for g in range(0, len(adj), 97))  # adjacency is symmetric
    graph = make_inputs.gat(rng)
    assert len(graph["ptr"]) - 1 >= 100000 and len(graph["idx"]) >= 1000000
    assert make_inputs.softras(rng)["faces"].shape[0] >= 1000


def test_gat_projects_the_features_with_its_weight(teml):
    # FreeTensor's GAT multiplies by weight first: another weight, another output
    inputs = make_inputs.gat(np.random.default_rng(6), small=True)
    assert inputs["weight"].shape == (32, 32)
    inputs["weight"] = np.eye(32, dtype=np.float32)[::-1].copy()  # features reversed
    got = teml.run(EXAMPLES / "gat.py", inputs, ["y"])["y"]
    np.testing.assert_allclose(got, reference.gat(**inputs), rtol=2e-4, atol=2e-4)
    plain = dict(inputs, weight=np.eye(32, dtype=np.float32))
    assert not np.allclose(got, reference.gat(**plain), atol=1e-3)


def test_softras_gives_one_probability_map_per_face(teml):
    inputs = make_inputs.softras(np.random.default_rng(7), small=True)
    prob = teml.run(EXAMPLES / "softras.py", inputs, ["prob"])["prob"]
    assert prob.shape == (len(inputs["faces"]), 64, 64)
    assert prob.min() >= 0 and prob.max() <= 1 and (prob > 0.5).any()


@pytest.mark.parametrize("name", ["subdivnet", "longformer", "softras", "gat"])
def test_pytorch_baselines_match_numpy(name):
    import torch
    spec = importlib.util.spec_from_file_location("torch_layers", EXAMPLES.parents[1] / "bench" / "freetensor" / "torch_layers.py")
    layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layers)
    inputs = make_inputs.WORKLOADS[name](np.random.default_rng(5), small=True)
    tensors = {k: torch.from_numpy(v).long() if v.dtype == np.int32 else torch.from_numpy(v) for k, v in inputs.items()}
    with torch.no_grad():
        got = getattr(layers, name)(**tensors).numpy()
    np.testing.assert_allclose(got, getattr(reference, name)(**inputs), rtol=2e-4, atol=2e-4)
