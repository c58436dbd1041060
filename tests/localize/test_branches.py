"""A wrong condition sends the failing test down a branch that its passing tests take less
often: line coverage records the condition whichever way it went, so the condition ties
with the lines that run before it; the branch it took breaks the tie."""

from __future__ import annotations

import pytest

from tests.localize.helpers import localized, ranked_in

SHIPPING = {
    "shop/__init__.py": "",
    "shop/cost.py": """
        def ship_cost(weight, express):
            extra = 3 if express else 0
            if weight < 100:
                return 5 + extra
            over = weight - 10
            return 9 + extra + over
        """,
    "tests/test_cost.py": """
        from shop.cost import ship_cost


        def test_light():
            assert ship_cost(2, False) == 5


        def test_light_express():
            assert ship_cost(2, True) == 8


        def test_very_heavy():
            assert ship_cost(150, False) == 149


        def test_heavy():
            assert ship_cost(12, False) == 11
        """,
}


@pytest.mark.slow
def test_the_condition_whose_branch_the_failing_test_took_leads_its_tie(make_project):
    """Parcels of 10 kg and more are heavy; the fault is ``100`` (should be ``10``). Lines 2
    and 3 run in every test: the spectrum ties them. The branch line 3 took (line 4) ran in
    the failing test and two of the three passing tests: the condition leads the tie."""
    doc = localized(make_project, SHIPPING, "tests/test_cost.py::test_heavy")
    cost = ranked_in(doc, "shop/cost.py")
    assert cost[4]["rank"] == 1, doc["ranking"]  # the return that gave the test its 5
    assert (cost[3]["rank"], cost[3]["ties"]) == (2, 1), doc["ranking"]
    assert cost[3]["evidence"] == ["the branch to line 4 scores sqrt(1/3), above the condition"]
    assert cost[2]["rank"] == 3 and cost[2]["evidence"] == []
