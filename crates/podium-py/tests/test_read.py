"""Reading match files: rating order, the errors the binary gives, and `Matches`."""

import pathlib
import subprocess

import pytest

import podium
from conftest import EXAMPLES, podium_bin


def write(path, text):
    path.write_text(text)
    return str(path)


def test_matches_come_in_rating_order(tmp_path):
    path = write(tmp_path / "t.csv", "match,time,player,rank\n"
                 "late,2024-05-03,a,1\nlate,2024-05-03,b,2\n"
                 "early,2024-05-01,b,1\nearly,2024-05-01,a,2\n"
                 "mid,2024-05-02T12:00:00Z,b,1\nmid,2024-05-02T12:00:00Z,a,2\n"
                 "early2,2024-05-01,a,1\nearly2,2024-05-01,b,2\n")
    m = podium.read_csv(path)
    assert [x.id for x in m] == ["early", "early2", "mid", "late"]
    assert m[1].time.isoformat() == "2024-05-01T00:00:00+00:00"


def test_files_are_ordered_together():
    m = podium.read([EXAMPLES / "game-night.csv", EXAMPLES / "game-night.jsonl"])
    times = [x.time for x in m]
    assert times == sorted(times)
    csv_only = podium.read_csv(EXAMPLES / "game-night.csv")
    jsonl_only = podium.read_jsonl(str(EXAMPLES / "game-night.jsonl"))
    assert len(m) == len(csv_only) + len(jsonl_only)


def cli_errors(path):
    done = subprocess.run([podium_bin(), "rate", path], capture_output=True, text=True)
    assert done.returncode != 0
    return done.stderr


def test_a_bad_row_names_file_line_and_field(tmp_path):
    path = write(tmp_path / "bad.csv", "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,first\ng2,b,2\n")
    with pytest.raises(podium.ReadError) as err:
        podium.read_csv(path)
    e = err.value
    assert (e.file, e.line, e.field, e.match_id) == (path, 4, "rank", "g2")
    line = f'{path}:4: field `rank`: "first" is not valid, expected a finite number'
    assert str(e) == ("1 bad match found, nothing read (pass skip_bad=True to read the rest):\n  " + line)
    assert e.errors == [line]
    assert line in cli_errors(path)
    assert isinstance(e, ValueError) and isinstance(e, podium.PodiumError)


def test_every_bad_match_is_listed_and_skip_bad_reads_the_rest(tmp_path):
    path = write(tmp_path / "bad.csv", "match,player,rank\n"
                 "g1,a,1\ng1,a,2\n"          # a twice
                 "g2,a,1\ng2,b,2\n"
                 "g3,a,1\n"                  # one entry
                 "g4,a,1\ng4,b,nan\n")      # NaN rank
    with pytest.raises(podium.ReadError) as err:
        podium.read_csv(path)
    assert len(err.value.errors) == 3
    for line in err.value.errors:
        assert line in cli_errors(path)
    m = podium.read_csv(path, skip_bad=True)
    assert [x.id for x in m] == ["g2"]
    assert m.skipped == err.value.errors
    assert repr(m) == "Matches(1 match, 2 players, 3 skipped)"


def test_a_bad_json_line(tmp_path):
    path = write(tmp_path / "bad.jsonl",
                 '{"match":"g1","results":[{"player":"a","rank":1},{"player":"b","rank":2}]}\n'
                 '{"match":"g2","results":[{"player":"a","rank":1},{"player":"b","rank":"x"}]}\n')
    with pytest.raises(podium.ReadError) as err:
        podium.read_jsonl(path)
    assert err.value.line == 2 and err.value.errors[0] in cli_errors(path)


def test_an_empty_match_id_is_refused_in_json_lines_as_in_csv(tmp_path):
    jsonl = write(tmp_path / "t.jsonl",
                  '{"match":"","results":[{"player":"a","rank":1},{"player":"b","rank":2}]}\n'
                  '{"match":"g2","results":[{"player":"a","rank":1},{"player":"b","rank":2}]}\n')
    csv = write(tmp_path / "t.csv", "match,player,rank\n,a,1\n,b,2\ng2,a,1\ng2,b,2\n")
    for path, line in ((jsonl, 1), (csv, 2)):
        with pytest.raises(podium.ReadError) as err:
            podium.read(path)
        e = err.value
        assert e.errors == [f'{path}:{line}: field `match`: "" is not valid, expected a match id']
        assert (e.line, e.field, e.match_id) == (line, "match", None)
        assert e.errors[0] in cli_errors(path)
        m = podium.read(path, skip_bad=True)
        assert [x.id for x in m] == ["g2"]


def test_a_json_lines_file_without_a_match_is_refused(tmp_path):
    """An empty JSON Lines file, or one of blank lines, is an error naming it, as the
    binary says and as an empty CSV file is; a league rates nothing from it."""
    expected = 'expected one match per line, like {"match":..,"results":[..]}'
    empty = write(tmp_path / "empty.jsonl", "")
    blank = write(tmp_path / "blank.jsonl", "\n \n")
    for path, said in [
        (empty, f"{empty}:1: empty file: {expected}"),
        (blank, f"{blank}:1: the file holds no matches: its 2 lines are blank ({expected})"),
    ]:
        with pytest.raises(podium.ReadError) as err:
            podium.read_jsonl(path)
        assert str(err.value) == said
        assert (err.value.file, err.value.line, err.value.errors) == (path, 1, [said])
        assert cli_errors(path) == f"error: {said}\n"
        league = podium.League("sme")
        with pytest.raises(podium.ReadError) as err:
            league.rate_files(path)
        assert str(err.value) == said
        assert league.matches_rated == 0


def test_files_that_cannot_be_read(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        podium.read_csv(tmp_path / "none.csv")
    assert err.value.filename == str(tmp_path / "none.csv")
    path = write(tmp_path / "nocol.csv", "match,player\ng1,a\n")
    with pytest.raises(podium.ReadError, match="nocol.csv:1:"):
        podium.read_csv(path)
    with pytest.raises(ValueError, match="format"):
        podium.read(path, format="xml")
    with pytest.raises(TypeError):
        podium.read_csv(42)


def test_a_match_id_names_one_match_across_the_files(tmp_path):
    a = write(tmp_path / "a.csv", "match,player,rank\ng1,a,1\ng1,b,2\n")
    b = write(tmp_path / "b.csv", "match,player,rank\ng2,a,1\ng2,b,2\ng1,b,1\ng1,a,2\n")
    with pytest.raises(podium.ReadError) as err:
        podium.read([a, b])
    line = f'{b}:4: match "g1" was read already from {a}:2 (a match id names one match across all the files)'
    assert err.value.errors == [line]
    assert (err.value.file, err.value.line, err.value.match_id) == (b, 4, "g1")
    done = subprocess.run([podium_bin(), "rate", a, b], capture_output=True, text=True)
    assert line in done.stderr
    league = podium.League("sme")
    with pytest.raises(podium.ReadError) as err:
        league.rate_files([a, b])
    assert err.value.errors == [line] and league.matches_rated == 0
    assert [m.id for m in podium.read([a, b], skip_bad=True)] == ["g1", "g2"]


def test_the_plain_reader_and_the_general_one_agree(tmp_path):
    rows = ["match,player,rank"]
    for g in range(50):
        for i, p in enumerate(["a", "b", "c", "d"][: 2 + g % 3]):
            rows.append(f"g{g},{p}{g % 7},{1 + (i if g % 5 else 0)}")
    plain = write(tmp_path / "plain.csv", "\n".join(rows) + "\n")
    general = write(tmp_path / "general.csv", "\n".join(
        [rows[0] + ",weight"] + [r + ",1" for r in rows[1:]]) + "\n")
    assert podium.read_csv(plain).to_dicts() == podium.read_csv(general).to_dicts()


def test_scores_are_kept():
    m = podium.read_csv(EXAMPLES / "game-night.csv")
    assert m[0].entries[0].score == 83.0 and m[0].entries[0].place == 1


def test_matches_are_a_sequence():
    m = podium.read_csv(EXAMPLES / "game-night.csv")
    n = len(m)
    assert m[-1].id == list(m)[-1].id
    tail = m[-5:]
    assert isinstance(tail, podium.Matches) and len(tail) == 5
    assert [x.id for x in tail] == [x.id for x in list(m)[-5:]]
    assert [x.id for x in m[::-1]][0] == m[n - 1].id
    with pytest.raises(IndexError):
        m[n]
    assert set(tail.players) <= set(m.players)
    rows = m.to_dicts()
    assert sum(len(x.players) for x in m) == len(rows)
    built = podium.Matches([["a", "b"], {"b": 1, "c": 2}, podium.Match(["c", "a"], id="x")])
    assert [x.id for x in built] == ["1", "2", "x"]
