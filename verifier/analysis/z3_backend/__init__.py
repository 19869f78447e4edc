"""The verifier's Z3 backend (the only verifier package importing z3): solver primitives, the function
queries and the config checks. Results are :class:`~evalgap.verifier.analysis.spec_findings.SpecFinding` data."""

from evalgap.verifier.analysis.z3_backend.functions import analyze_function
from evalgap.verifier.analysis.z3_backend.solver import CoreResult, SatResult, minimal_core, solve

__all__ = ["analyze_function", "minimal_core", "solve", "CoreResult", "SatResult"]
