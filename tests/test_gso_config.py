"""LightDock's GSO configuration file (``-f``) and step options (``-t``, ``-r``, ``-ns``)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import DATA, writable_setup
from sparkledock.engine.gso import GSOParameters
from sparkledock.engine.spec import RunSpec
from sparkledock.errors import InputFileError
from sparkledock.io.gsoconfig import read_gso_config

CONF = DATA / "lightdock_regression" / "glowworm.conf"  # LightDock's regression cases' file


def test_lightdock_configuration_file_is_read():
    params = read_gso_config(CONF)
    assert (params.initial_vision_range, params.max_vision_range, params.beta) == (15.0, 40.0, 0.16)
    assert (params.rho, params.gamma, params.initial_luciferin, params.max_neighbors) == (
        0.4,
        0.6,
        5.0,
        5,
    )
    assert params.translation_step == 0.5  # steps are options, not keys


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[GSO]\nrho = 0.4\n", "has no gamma"),
        ("[GLOW]\nrho = 0.4\n", "no [GSO] section"),
        ("not an ini file\n", "not a GSO configuration file"),
    ],
)
def test_bad_configuration_files_are_one_line(tmp_path, text, says):
    path = tmp_path / "glowworm.conf"
    path.write_text(text)
    with pytest.raises(InputFileError, match=re.escape(says)) as error:
        read_gso_config(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)
    bad = CONF.read_text().replace("beta = 0.16", "beta = fast")
    path.write_text(bad)
    with pytest.raises(InputFileError, match="beta = 'fast' is not a number"):
        read_gso_config(path)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("rho = 0.4", "rho = nan", "rho = 'nan' must be from 0 to 1"),
        ("rho = 0.4", "rho = 1.5", "rho = '1.5' must be from 0 to 1"),
        ("gamma = 0.6", "gamma = -0.6", "gamma = '-0.6' must be 0 or more"),
        ("beta = 0.16", "beta = inf", "beta = 'inf' must be 0 or more"),
        ("initialLuciferin = 5.0", "initialLuciferin = inf", "must be a finite number"),
        ("initialVisionRange = 15.0", "initialVisionRange = 0", "must be positive"),
        ("maximumVisionRange = 40.0", "maximumVisionRange = -40", "must be positive"),
        ("maximumNeighbors = 5", "maximumNeighbors = 0", "must be at least 1"),
    ],
)
def test_meaningless_gso_constants_are_refused(tmp_path, old, new, says):
    """NaN, infinities and out-of-range constants never reach a run (they wrote NaN into the
    gso files): one line naming the file and the key."""
    path = tmp_path / "glowworm.conf"
    text = CONF.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    with pytest.raises(InputFileError, match=re.escape(says)) as error:
        read_gso_config(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)


def test_run_key_keeps_its_old_form_with_lightdocks_defaults():
    spec = RunSpec(10, (0,), "dfire", 1, True)
    assert "gso" not in json.loads(spec.key())
    other = RunSpec(10, (0,), "dfire", 1, True, gso_params=read_gso_config(CONF))
    assert json.loads(other.key())["gso"]["max_vision_range"] == 40.0


def test_configuration_and_steps_change_the_run_and_lightdock_spelling_takes_them(
    tmp_path, monkeypatch
):
    from sparkledock.cli import main
    from sparkledock.lightdock.commands import main as lightdock

    texts = {}
    for name, extra in (
        ("default", []),
        ("same", ["--translation-step", "0.5"]),
        ("conf", ["--gso-config", str(CONF)]),
        ("step", ["--translation-step", "1.5"]),
    ):
        setup = writable_setup(tmp_path / name)
        assert main(["run", str(setup), "5", "--swarms", "0", "--exact", "--quiet", *extra]) == 0
        texts[name] = (setup / "swarm_0" / "gso_5.out").read_text()
    assert texts["same"] == texts["default"]
    assert texts["conf"] != texts["default"] and texts["step"] != texts["default"]
    assert "15.000" in (tmp_path / "conf" / "swarm_0" / "gso_0.out").read_text()  # vision range
    setup = writable_setup(tmp_path / "ld")
    (setup / "glowworm.conf").write_text(CONF.read_text())
    monkeypatch.chdir(setup)
    assert lightdock("lightdock3.py", ["setup.json", "5", "-f", "glowworm.conf", "-l", "0"]) == 0
    assert (setup / "swarm_0" / "gso_5.out").read_text() == texts["conf"]
    with pytest.raises(SystemExit):
        main(["run", str(setup), "5", "--translation-step", "nope"])
    assert GSOParameters().nmodes_step == 0.5


def test_local_minimization_on_torch_matches_numba_and_combinations_refuse(tmp_path):
    """-min on the torch engine (fp64, CPU device) follows the numba run: the minimised
    glowworm's score is written, and it is higher than without -min."""
    pytest.importorskip("torch")
    import numpy as np

    from sparkledock.cli import main
    from sparkledock.io.lightdock import read_gso_output

    out = {}
    for name, extra in (
        ("numba", []),
        ("torch", ["--backend", "torch", "--device", "cpu"]),
        ("plain", None),
    ):
        setup = writable_setup(tmp_path / name)
        flags = ["-min"] if extra is not None else []
        # one step: one minimisation (Powell on one pose at a time: slow on torch's CPU)
        argv = ["run", str(setup), "1", "--swarms", "0", "--quiet", *flags, *(extra or [])]
        assert main(argv) == 0
        out[name] = read_gso_output(setup / "swarm_0" / "gso_1.out")
    np.testing.assert_allclose(out["torch"].poses, out["numba"].poses, atol=1e-6)
    np.testing.assert_allclose(out["torch"].scores, out["numba"].scores, rtol=1e-9, atol=1e-9)
    assert out["numba"].scores.max() > out["plain"].scores.max()
    setup = writable_setup(tmp_path / "combo")
    argv = ["run", str(setup), "1", "--swarms", "0", "--quiet", "-min"]
    assert main([*argv, "--scoring", "dfire:1,vdw:0.5"]) == 1


def test_an_unknown_key_is_a_warning_and_a_binary_file_one_line(tmp_path):
    from sparkledock.errors import SparkledockWarning

    path = tmp_path / "glowworm.conf"
    path.write_text(CONF.read_text().replace("[GSO]", "[GSO]\nrhoo = 0.5"))
    with pytest.warns(SparkledockWarning, match=r"\[GSO\] rhoo is not a GSO constant"):
        assert read_gso_config(path) == read_gso_config(CONF)
    path.write_bytes(b"\x8f\xff[GSO]\x00")
    with pytest.raises(InputFileError, match="not a GSO configuration file"):
        read_gso_config(path)
