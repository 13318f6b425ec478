"""The leaderboard's order: established players first, everyone by rating on request."""

import pytest

import podium


def frank_joins_late(system="sme"):
    """Eight game nights of ann, bo, cy and dee; frank joins the last two and wins both."""
    league = podium.League(system)
    four = ["ann", "bo", "cy", "dee"]
    for night in range(8):
        order = [four[(night + k) % 4] for k in range(4)]
        if night >= 6:
            order.insert(0, "frank")
        league.rate(order, id=f"night {night + 1}")
    return league


def test_a_player_who_won_their_two_games_stands_below_the_established_players():
    league = frank_joins_late()
    board = league.standings()
    assert [s.player for s in board][4] == "frank"
    assert [s.provisional for s in board] == [False, False, False, False, True]
    assert [s.position for s in board] == [1, 2, 3, 4, 5]
    by_rating = league.standings(order="rating")
    assert by_rating[0].player == "frank"
    assert [s.player for s in board][:4] == [s.player for s in by_rating][1:]


def test_an_unknown_order_names_the_orders_there_are():
    with pytest.raises(ValueError) as err:
        frank_joins_late().standings(order="elo")
    assert str(err.value) == ('unknown order "elo": expected "established" (settled players first) '
                              'or "rating" (every player by rating)')
