"""The typical wall times that order a shared run's queue when the results directory holds none (verify/typical_times.py)."""
import json

from verify import typical_times
from verify.store import ResultStore
from verify.sweep import stored_wall_times


def _doc(cid: str, seconds: float, fidelity: str = "quick", grid=None) -> dict:
    return {"format": 2, "point": {"seed": 0, "grid": grid or {}},
            "result": {"id": cid, "env": {"wall_time_s": seconds, "fidelity": fidelity, "cpu": "c", "torch_threads": 1,
                                          "fedverify_commit": "abc"}}}


def test_the_shipped_table_reads_and_every_time_is_a_positive_number():
    table = typical_times.typical_wall_times()
    assert len(table) > 100 and all(v >= 0 for v in table.values())
    assert max(table, key=table.get).split(".")[0] in {"su2022", "werner2023", "allouah2025", "dutta2023", "buttaci2024"}


def test_a_table_is_built_from_quick_top_level_results_only(tmp_path):
    for name, doc in {"p.c01": _doc("p.c01", 2.5), "p.c02": _doc("p.c02", 0.5),
                      "p.c03": _doc("p.c03", 9.0, fidelity="full"),  # another fidelity: not a quick time
                      "p.c01.s1-g0123abcd": _doc("p.c01", 7.0, grid={"d": 3})}.items():  # a grid point
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    (tmp_path / "broken.json").write_text("{")
    doc = typical_times.table_from(tmp_path)
    assert doc["seconds"] == {"p.c01": 2.5, "p.c02": 0.5}
    assert doc["measured"] == [{"cpu": "c", "torch_threads": 1, "commit": "abc"}]


def test_unknown_checks_count_as_the_median_and_stored_times_come_first(tmp_path, monkeypatch):
    monkeypatch.setattr(typical_times, "typical_wall_times", lambda: {"a.c01": 1.0, "a.c02": 3.0, "a.c03": 8.0})
    assert typical_times.typical_wall_time("a.c03") == 8.0 and typical_times.typical_wall_time("new.c01") == 3.0

    class Spec:
        def __init__(self, cid):
            self.id = cid

    store = ResultStore(tmp_path)
    monkeypatch.setattr(store, "json_path", lambda cid: tmp_path / f"{cid}.json")
    (tmp_path / "a.c01.json").write_text("{")  # damaged: keeps its typical time
    assert stored_wall_times(store, [Spec("a.c01"), Spec("a.c03"), Spec("new.c01")]) == {
        "a.c01": 1.0, "a.c03": 8.0, "new.c01": 3.0}


def test_main_needs_a_directory_of_quick_results(tmp_path, capsys):
    assert typical_times.main([str(tmp_path / "missing")]) == 2
    assert typical_times.main([str(tmp_path)]) == 2 and "no quick-suite Results" in capsys.readouterr().err
