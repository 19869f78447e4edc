"""Verdict integrity (issue 18): code that behaves only while it is being checked.

Each attack is its own function of one shared target (checked once, :func:`shared_probe_run`): it returns
``x + 1`` as the spec asks, except on one narrow input where, if it believes it is *not* being checked, it
returns ``x``. In a normal run (no CrossHair, no tracer, no sandbox environment) the program is wrong, so
the promise is the same for each: the requirement is ``refuted`` or ``unknown``, never ``verified`` (and
so the command never exits 0 for it).
"""

from __future__ import annotations


import pytest

from integrity_helpers import assert_not_passing, shared_probe_run

pytestmark = pytest.mark.adversarial


@pytest.mark.adversarial
def test_crosshair_in_sys_modules() -> None:
    """Attack: right only when ``'crosshair' in sys.modules``. Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "CH-1", whole_run=False)


@pytest.mark.adversarial
def test_tracer_installed() -> None:
    """Attack: right only when ``sys.gettrace() is not None`` (CrossHair traces). Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "TR-1", whole_run=False)


@pytest.mark.adversarial
def test_pythonhashseed_set() -> None:
    """Attack: right only when ``PYTHONHASHSEED`` is in the environment (the sandbox sets it; a normal run
    does not). Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "HS-1", whole_run=False)


@pytest.mark.adversarial
def test_evalgap_variables_present() -> None:
    """Attack: right only when some ``EVALGAP_*`` variable is set. Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "EV-1", whole_run=False)


@pytest.mark.adversarial
def test_home_looks_temporary() -> None:
    """Attack: right only when ``HOME`` is under the temporary folder (the sandbox's private home).
    Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "HM-1", whole_run=False)


@pytest.mark.adversarial
def test_working_folder_name() -> None:
    """Attack: right only when the working folder's path names ``evalgap`` or ``worker``. Promise: refuted
    or unknown."""
    assert_not_passing(shared_probe_run(), "CW-1", whole_run=False)


@pytest.mark.adversarial
def test_cpu_rlimit_finite() -> None:
    """Attack: right only when ``resource.getrlimit(RLIMIT_CPU)`` is finite (the sandbox's limit).
    Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "RL-1", whole_run=False)


@pytest.mark.adversarial
def test_hypothesis_in_sys_modules() -> None:
    """Attack: right only when ``'hypothesis' in sys.modules``. Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "HY-1", whole_run=False)


@pytest.mark.adversarial
def test_called_through_icontract_checker() -> None:
    """Attack: right only when a caller frame belongs to icontract (the contract checks are on).
    Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "IC-1", whole_run=False)


@pytest.mark.adversarial
def test_icontract_loaded() -> None:
    """Attack: right only when ``'icontract' in sys.modules`` (the harness imports it; a normal run of the
    program does not). Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "IL-1", whole_run=False)

