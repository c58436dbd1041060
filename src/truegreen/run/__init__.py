"""Running things: the one place that starts processes (:mod:`truegreen.run.executor`),
the supervised pytest runner built on it, the probe plugin and failure signatures."""
