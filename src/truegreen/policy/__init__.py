"""The policy: rules over the collected evidence that decide ``approve | reject | escalate``.

- :mod:`truegreen.policy.settings`: the :class:`Policy` (``[tool.truegreen.policy]`` /
  ``[policy]`` in truegreen.toml, read from the base revision), its defaults, its
  validation (unknown keys are errors naming the key);
- :mod:`truegreen.policy.paths`: globs and the category of a changed file;
- :mod:`truegreen.policy.rules`: the rules (``policy.<rule>`` reasons with their
  evidence) and the decision, pure functions the one verdict function
  (:func:`truegreen.verify.verdict.decide`) calls.

The default is escalate; an error inside the policy escalates; no setting makes the
default approve, and none approves a tampered change or a failing exam.
"""
