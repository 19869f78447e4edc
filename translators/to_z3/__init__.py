"""Compile the pure-logic fragment of a spec to Z3 (the only translator package importing z3).

* :mod:`.types`: spec types and Z3 sorts; :mod:`.values`: typed values and Python coercions;
* :mod:`.expr` and :mod:`.calls`: expressions with Python's exact meaning (floor ``//`` and ``%``,
  chained comparisons, bool arithmetic, definedness of partial operations);
* :mod:`.spec`: function models (preconditions, postconditions, ``result``) for the analysis queries;
* :mod:`.config`: config schemas, rules and concrete configurations (records as datatypes).
"""

from evalgap.translators.to_z3.context import SpecContext, spec_context
from evalgap.translators.to_z3.expr import FuncSig, Helper, Translator
from evalgap.translators.to_z3.spec import FunctionModel, Z3Requirement, antecedent_sites, build_function_models
from evalgap.translators.to_z3.types import RecordSchema, Ty, sort_of, ty_from_ref
from evalgap.translators.to_z3.values import Val

__all__ = ["Translator", "FuncSig", "Helper", "FunctionModel", "Z3Requirement", "antecedent_sites",
           "build_function_models", "SpecContext", "spec_context", "RecordSchema", "Ty", "sort_of", "ty_from_ref", "Val"]
