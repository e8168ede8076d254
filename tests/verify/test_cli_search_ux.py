"""What search and list tell a user: admissibility of each method's best point, a method that lost to random
sampling, the searchable checks in 'list'; --json without a FILE in search and sweep."""
import json

from verify import cli


def test_search_says_admissible_and_lost_to_random(tmp_path, capsys):
    # werner2023.c18 with --method gradient: random sampling scores higher at the same budget (README's example)
    assert cli.main(["search", "werner2023.c18", "--method", "gradient", "--results", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("its best point satisfies the claim's constraint") == 2
    assert "gradient lost to random sampling at the same budget" in out


def test_list_marks_searchable_checks(capsys):
    assert cli.main(["list", "--paper", "werner2023"]) == 0
    out = capsys.readouterr().out
    marked = {line.split()[0] for line in out.splitlines() if line.endswith("[searchable]")}
    assert {"werner2023.c13", "werner2023.c17", "werner2023.c18"} <= marked
    assert "werner2023.c09" not in marked and "[searchable] by 'fedverify search ID'" in out


def test_search_and_sweep_json_without_file_go_to_stdout(tmp_path, capsys):
    assert cli.main(["search", "werner2023.c18", "--budget", "20", "--json", "--results", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "werner2023.c18"
    assert cli.main(["sweep", "werner2023.c15", "--workers", "1", "--json", "--results", str(tmp_path),
                     "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["id"] == "werner2023.c15"
