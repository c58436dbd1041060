"""truegreen's selection filter: run only the tests regression selection picked.

A pytest plugin (``-p truegreen_select``), stdlib only, loaded into the project's own
interpreter from a directory truegreen puts on ``PYTHONPATH``; pytest is given the files
that hold the selected tests, and this plugin deselects the rest of their items.
``TRUEGREEN_SELECT`` names a JSON file:

* ``ids``: the node ids to keep (as the base collected them);
* ``whole``: files whose every item is kept (test modules the change touches);
* ``known``: every node id the base collected. An item whose id the base never collected
  (a parameter whose id is not stable from one process to the next, such as an object's
  address) is kept when its function is selected: its id cannot be matched, so its
  function stands for it.
"""

import json
import os

_SPEC = os.environ.get("TRUEGREEN_SELECT")


def _function(nodeid):
    return nodeid.split("[", 1)[0]


def pytest_collection_modifyitems(session, config, items):
    if not _SPEC:
        return
    with open(_SPEC, encoding="utf-8") as f:
        spec = json.load(f)
    ids = set(spec.get("ids", ()))
    whole = set(spec.get("whole", ()))
    known = set(spec.get("known", ()))
    functions = {_function(i) for i in ids}
    kept, dropped = [], []
    for item in items:
        nodeid = item.nodeid
        if (
            nodeid in ids
            or nodeid.split("::", 1)[0] in whole
            or (nodeid not in known and _function(nodeid) in functions)
        ):
            kept.append(item)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
