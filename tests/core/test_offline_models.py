"""The two offline models: the shipped file as it is and its dynamically quantized derivation (the default).

Real model files, real vaults: the derivation's cache (keyed, atomic, a damaged or unwritable one survived), the
fallback to the shipped model where it cannot be derived, and a vault indexed with one model opened with the
other (its vectors replaced, never mixed, keyword search meanwhile).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memory_curator.core.embed import local, quantized
from memory_curator.core.embed.local import EXACT, QUANTIZED, LocalEmbedder
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.settings import VaultSettings
from memory_curator.environment import config_from_env

pytestmark = pytest.mark.model

NOTES = ["We chose SQLite with sqlite-vec for the vectors.", "The cat sleeps on the warm laptop all afternoon.",
         "Deploys run from the main branch every Friday.", "Remember to water the tomatoes twice a week.",
         "The quarterly budget review moved to Thursday."]


def test_the_default_is_the_quantized_model_and_it_stays_close_to_the_shipped_one(local_embedder):
    assert local_embedder.key == "local:all-MiniLM-L6-v2-dynamic-int8"
    fast = np.array(local_embedder.embed_documents(NOTES))
    exact = np.array(LocalEmbedder(model=EXACT).embed_documents(NOTES))
    cosine = (fast * exact).sum(axis=1)
    assert cosine.min() > 0.97, cosine
    assert not np.array_equal(fast, exact)  # another model: that is why it has its own key


def test_a_texts_quantized_vector_does_not_depend_on_its_batch(local_embedder):
    """Activations are quantized over a whole run: texts run one per run so a vector is the text's alone."""
    together = local_embedder.embed_documents(NOTES)
    for i, text in enumerate(NOTES):
        assert local_embedder.embed_documents([text])[0] == together[i]
    assert local_embedder.embed_query(NOTES[2]) == together[2]


def test_derived_once_into_the_cache_under_a_keyed_name(tmp_path):
    source = local._source()
    cache = tmp_path / "cache"
    stale = cache / f"all-MiniLM-L6-v2-{local.MODEL_SHA256[:16]}-ort0.0.1-{quantized.RECIPE}.onnx"
    cache.mkdir()
    stale.write_bytes(b"derived by another onnxruntime")  # never used: its name says another version
    path = Path(quantized.model(source, local.MODEL_SHA256, cache))
    assert path.parent == cache and path != stale
    assert local.MODEL_SHA256[:16] in path.name and quantized.RECIPE in path.name
    import onnxruntime  # noqa: PLC0415 - the installed version is in the name

    assert f"ort{onnxruntime.__version__}" in path.name
    assert sorted(p.name for p in cache.iterdir()) == sorted([path.name, stale.name])  # no temp file left
    written = path.stat().st_mtime_ns
    assert quantized.model(source, local.MODEL_SHA256, cache) == str(path)  # found, not derived again
    assert path.stat().st_mtime_ns == written


def test_a_damaged_cached_model_is_derived_again(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    damaged = cache / quantized.cached_name(local.MODEL_SHA256)
    damaged.write_bytes(b"half a model")
    runtime = local._Runtime(QUANTIZED, cache)
    assert damaged.stat().st_size > 10_000_000  # replaced by a whole model
    assert runtime.session.get_inputs()[0].name == "input_ids"


def test_an_unwritable_cache_keeps_the_model_in_memory(tmp_path, caplog):
    in_the_way = tmp_path / "cache"
    in_the_way.write_text("a file where the cache folder should be")
    model = quantized.model(local._source(), local.MODEL_SHA256, in_the_way)
    assert isinstance(model, bytes) and len(model) > 10_000_000
    assert "could not be kept" in caplog.text


@pytest.mark.slow
def test_deriving_gives_the_same_bytes_every_time():
    source = local._source()
    assert quantized._derive(source) == quantized._derive(source)


# Hides the `onnx` package, as in an install of the `local` extra from before it needed it, then opens a vault.
WITHOUT_ONNX = r"""
import importlib.machinery, json, logging, sys
find = importlib.machinery.PathFinder.find_spec
def hide(name, path=None, target=None):
    return None if name == "onnx" or name.startswith("onnx.") else find(name, path, target)
importlib.machinery.PathFinder.find_spec = hide
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
from memory_curator.core.config import MemoryConfig
from memory_curator.core.service import MemoryService
config = MemoryConfig(ollama_host="http://127.0.0.1:9", model_cache_dir=sys.argv[2])
with MemoryService.open(sys.argv[1], config=config) as svc:
    svc.save("We chose SQLite with sqlite-vec for the vectors.")
    svc.embedding.settle(120)
    hits = svc.search("which database holds embeddings", mode="semantic")
    print(json.dumps([svc.embedder.key, len(hits), svc.store.unembedded_count()]))
"""


def test_without_onnx_the_shipped_model_is_used_with_a_warning(tmp_path):
    done = subprocess.run([sys.executable, "-c", WITHOUT_ONNX, str(tmp_path / "vault"), str(tmp_path / "cache")],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == ["local:all-MiniLM-L6-v2", 1, 0]
    assert "needs the `onnx` package" in done.stderr
    assert not (tmp_path / "cache").exists()


def test_a_vault_of_the_shipped_model_moves_to_the_quantized_one(vault_dir, config, local_embedder):
    exact = LocalEmbedder(model=EXACT)
    with MemoryService.open(vault_dir, embedder=exact, config=config) as svc:
        ids = [it.id for it in svc.save_batch([{"content": n} for n in NOTES])]
        svc.embedding.settle(120)
        assert svc.store.vectors.model == "local:all-MiniLM-L6-v2" and svc.store.unembedded_count() == 0
        old = {i: svc.store.conn.execute("SELECT chunk_count FROM memories WHERE id = ?", (i,)).fetchone()[0]
               for i in ids}
    assert all(old.values())
    # Opened by name, as the app and the CLI do: the vault moves to the model this process runs.
    with MemoryService.open(vault_dir, embedder="auto", config=config, background=False) as svc:
        assert svc.embedder.key == "local:all-MiniLM-L6-v2-dynamic-int8"
        assert VaultSettings(vault_dir / ".memory-curator").embedding().key == svc.embedder.key
        assert svc.store.vectors.model == svc.embedder.key  # the old vectors are gone, none mixed in
        assert svc.store.unembedded_count() == len(NOTES) and svc.store.vectors.count() == 0
        meanwhile = svc.search("tomatoes", mode="hybrid")  # by keyword until the memories are embedded again
        assert meanwhile and meanwhile[0].memory.id == ids[3]
        assert any("keyword" in w for w in meanwhile.warnings)
        assert svc.reindex_missing() == len(NOTES)
        hits = svc.search("which database holds the embeddings", mode="semantic")
        assert hits[0].memory.id == ids[0] and not hits.warnings
    # and with the background unit, as the app opens it: nothing to move the second time
    with MemoryService.open(vault_dir, embedder="auto", config=config) as svc:
        assert svc.store.unembedded_count() == 0 and svc.store.vectors.model == svc.embedder.key


def test_a_process_still_on_the_old_model_stops_instead_of_mixing(vault_dir, config, local_embedder):
    old = MemoryService.open(vault_dir, embedder=LocalEmbedder(model=EXACT), config=config)
    try:
        old.save(NOTES[0])
        old.embedding.settle(120)
        with MemoryService.open(vault_dir, embedder="auto", config=config) as new:
            new.embedding.settle(120)
            assert new.store.vectors.model == "local:all-MiniLM-L6-v2-dynamic-int8"
            old.save(NOTES[1])  # the old process writes on, with the old model in hand
            old.embedding.wait(60)
            assert old.embedding.progress.state == "stopped"
            assert new.store.vectors.model == "local:all-MiniLM-L6-v2-dynamic-int8"
            assert new.search("cat on the laptop", mode="hybrid")  # the new process's search still works
    finally:
        old.close()


def test_the_composition_roots_keep_the_model_in_the_users_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("MEMORY_CURATOR_LOCAL_MODEL", raising=False)
    config = config_from_env()
    assert Path(config.model_cache_dir) == tmp_path / "xdg" / "memory-curator" / "models"
    assert config.local_model == QUANTIZED
    monkeypatch.setenv("MEMORY_CURATOR_LOCAL_MODEL", EXACT)
    assert config_from_env().local_model == EXACT


def test_an_offline_model_chosen_by_name_is_kept(vault_dir, config, local_embedder):
    """`reindex --model local:all-MiniLM-L6-v2` is a person's choice: the next open keeps it (and its vectors)
    instead of moving the vault to the default; switching back without a name follows the default again."""
    with MemoryService.open(vault_dir, embedder="auto", config=config, background=False) as svc:
        svc.save(NOTES[0])
        assert svc.change_embedder("local", EXACT) == 1
        assert svc.store.vectors.model == "local:all-MiniLM-L6-v2"
    with MemoryService.open(vault_dir, embedder="auto", config=config, background=False) as svc:
        assert svc.embedder.key == "local:all-MiniLM-L6-v2"
        assert svc.store.vectors.count() == 1 and svc.store.unembedded_count() == 0
        assert svc.search("which database holds the embeddings", mode="semantic")[0].memory.content == NOTES[0]
        assert svc.change_embedder("local") == 1  # by provider only: the model the app runs
    with MemoryService.open(vault_dir, embedder="local", config=config, background=False) as svc:
        assert svc.embedder.key == "local:all-MiniLM-L6-v2-dynamic-int8" and svc.store.unembedded_count() == 0


EMBED_IN_A_FRESH_HOME = """
import sys
from memory_curator.core.embed.local import LocalEmbedder
print(len(LocalEmbedder(cache_dir=sys.argv[1]).embed_query("where do the vectors live")))
"""


def test_the_model_runs_without_onnxruntimes_telemetry_writing_to_the_users_home(tmp_path):
    """onnxruntime 1.32 on Linux writes a device id and an event database under ~/.cache/Microsoft on import
    (and carries an uploader): the app turns that off, so its home holds only the app's own model cache."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    done = subprocess.run([sys.executable, "-c", EMBED_IN_A_FRESH_HOME, str(home / ".cache" / "memory-curator")],
                          capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["384"]
    assert sorted(p.name for p in (home / ".cache").iterdir()) == ["memory-curator"]
