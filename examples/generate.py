#!/usr/bin/env python3
"""Writes the made-up sample datasets of examples/ (run from anywhere; stdlib only):

- f1-season/: one season of 20 races of 20 drivers in 10 cars, in the Ergast layout
  that `podium import f1` reads (races.csv, results.csv with points, times and
  retirements, drivers.csv, constructors.csv). A driver's race pace is his own skill
  plus his car's plus Gaussian noise; one start in twenty ends in a retirement.
- games.log: a Quake 3 server log (ioq3 g_log format) of six free-for-all games and
  one capture-the-flag game between eight players, a few hundred lines, with frags,
  suicides, deaths by the world, flag captures and final scoreboards.
- catan-games.txt: 40 nights of a Catan group, newest first (`DATE : VP : Name pts, ...`).
- codeforces/: six contests' standings (`N`, then `handle rankLo rankHi`; equal
  scores share a rank range).

Every random draw comes from Python's seeded Mersenne Twister, so running it again
writes the same bytes: python3 examples/generate.py
"""

import datetime
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def write(path, text):
    with open(os.path.join(HERE, path), "w", newline="\n") as f:
        f.write(text)


def f1_season(rng):
    os.makedirs(os.path.join(HERE, "f1-season"), exist_ok=True)
    cars = ["aurora", "bolt", "corsa", "delta", "ember", "falcon", "granite", "helix", "ion", "jade"]
    car_pace = {c: 1.2 - 0.25 * i + rng.gauss(0, 0.1) for i, c in enumerate(cars)}
    drivers = [
        "ada_novak", "bruno_silva", "chen_wei", "dara_okafor", "elias_berg",
        "farah_haddad", "gino_russo", "hana_sato", "ivan_petrov", "jonas_meyer",
        "kai_tanaka", "lena_fischer", "mateo_garcia", "nina_kowalski", "omar_aziz",
        "pia_lind", "quinn_walsh", "rosa_mendes", "sven_holm", "tomas_ruiz",
    ]
    skill = {d: rng.gauss(0, 0.5) for d in drivers}
    seat = {d: cars[i // 2] for i, d in enumerate(drivers)}
    points = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]
    places = [
        "Harbour", "Desert", "Alpine", "Lakeside", "Coastal", "Forest", "Capital", "Island",
        "Canyon", "Valley", "Northern", "Southern", "Riverside", "Highland", "Plains",
        "Bay", "Summit", "Midnight", "Sunset", "Finale",
    ]
    day = datetime.date(2030, 3, 3)
    races = ["raceId,year,round,circuitId,name,date,time,url"]
    results = [
        "resultId,raceId,driverId,constructorId,number,grid,position,positionText,"
        "positionOrder,points,laps,time,milliseconds,fastestLap,rank,fastestLapTime,"
        "fastestLapSpeed,statusId"
    ]
    result_id = 0
    for rnd, place in enumerate(places, start=1):
        race_id = 100 + rnd
        races.append(f'{race_id},2030,{rnd},{rnd},"{place} Grand Prix","{day}","14:00:00",\\N')
        pace = {d: skill[d] + car_pace[seat[d]] + rng.gauss(0, 0.6) for d in drivers}
        grid = sorted(drivers, key=lambda d: -(pace[d] + rng.gauss(0, 0.3)))
        retired = [d for d in drivers if rng.random() < 0.05]
        finishers = sorted((d for d in drivers if d not in retired), key=lambda d: -pace[d])
        laps_out = {d: rng.randrange(1, 55) for d in retired}
        order = finishers + sorted(retired, key=lambda d: -laps_out[d])
        winner_ms = 5_400_000 + rng.randrange(0, 300_000)
        gap = 0
        for pos, d in enumerate(order, start=1):
            result_id += 1
            number = drivers.index(d) + 1
            constructor = cars.index(seat[d]) + 1
            if d in retired:
                text, position, laps, time, ms, status, pts = "R", "\\N", laps_out[d], "\\N", "\\N", 5, 0
            else:
                gap += 0 if pos == 1 else rng.randrange(800, 12_000)
                ms = winner_ms + gap
                if pos == 1:
                    h, rest = divmod(ms, 3_600_000)
                    m, rest = divmod(rest, 60_000)
                    time = f"{h}:{m:02}:{rest // 1000:02}.{rest % 1000:03}"
                else:
                    time = f"+{gap // 1000}.{gap % 1000:03}"
                text, position, laps, status = str(pos), pos, 57, 1
                pts = points[pos - 1] if pos <= len(points) else 0
            results.append(
                f"{result_id},{race_id},{number},{constructor},{number},{grid.index(d) + 1},"
                f"{position},{text},{pos},{pts},{laps},{time},{ms},\\N,\\N,\\N,\\N,{status}"
            )
        day += datetime.timedelta(days=14)
    write("f1-season/races.csv", "\n".join(races) + "\n")
    write("f1-season/results.csv", "\n".join(results) + "\n")
    write(
        "f1-season/drivers.csv",
        "driverId,driverRef,number,code,forename,surname\n"
        + "".join(
            f'{i},"{d}",{i},"{d.split("_")[1][:3].upper()}","{d.split("_")[0].title()}","{d.split("_")[1].title()}"\n'
            for i, d in enumerate(drivers, start=1)
        ),
    )
    write(
        "f1-season/constructors.csv",
        "constructorId,constructorRef,name\n"
        + "".join(f'{i},"{c}","{c.title()}"\n' for i, c in enumerate(cars, start=1)),
    )


def quake_log(rng):
    players = ["Anarki", "Doom", "Klesk", "Sarge", "Xaero", "Visor", "Major", "Hunter"]
    skill = dict(zip(players, [1.6, 1.3, 1.1, 1.0, 0.9, 0.8, 0.6, 0.5]))
    weapons = [
        (7, "MOD_ROCKET_SPLASH"), (6, "MOD_ROCKET"), (10, "MOD_RAILGUN"), (8, "MOD_PLASMA"),
        (11, "MOD_LIGHTNING"), (3, "MOD_MACHINEGUN"), (1, "MOD_SHOTGUN"), (4, "MOD_GRENADE"),
    ]
    world = [(22, "MOD_TRIGGER_HURT"), (19, "MOD_FALLING"), (16, "MOD_LAVA")]
    lines = []

    def log(t, text):
        lines.append(f"{t // 60:3}:{t % 60:02} {text}")

    day = datetime.date(2030, 6, 5)
    for game in range(7):
        ctf = game == 6
        t = 0
        log(t, "-" * 60)
        gametype = 4 if ctf else 0
        log(t, f"InitGame: \\sv_hostname\\Sample Arena\\g_gametype\\{gametype}\\fraglimit\\20"
               f"\\timelimit\\15\\capturelimit\\3\\mapname\\q3dm{6 + game}\\gamename\\baseq3")
        log(t, f"ServerTime: {day:%Y%m%d}200000 20:00:00 ({day:%d %b %Y})")
        present = players if ctf else rng.sample(players, rng.randrange(4, 7))
        team = {p: (1 + i % 2 if ctf else 0) for i, p in enumerate(present)}
        for cid, p in enumerate(present, start=2):
            log(t, f"ClientConnect: {cid}")
            log(t, f"ClientUserinfoChanged: {cid} n\\{p}\\t\\{team[p]}\\model\\{p.lower()}\\hc\\100")
            log(t, f"ClientBegin: {cid}")
        cid = {p: i for i, p in enumerate(present, start=2)}
        frags = {p: 0 for p in present}
        captures = {1: 0, 2: 0}
        for _ in range(rng.randrange(30, 45)):
            t += rng.randrange(3, 20)
            r = rng.random()
            victim = rng.choice(present)
            if r < 0.08:
                mod_id, mod = rng.choice(world)
                log(t, f"Kill: 1022 {cid[victim]} {mod_id}: <world> killed {victim} by {mod}")
                frags[victim] -= 1
            elif r < 0.14:
                mod_id, mod = rng.choice(weapons[:1] + weapons[7:])
                log(t, f"Kill: {cid[victim]} {cid[victim]} {mod_id}: {victim} killed {victim} by {mod}")
                frags[victim] -= 1
            else:
                rivals = [p for p in present if p != victim and (not ctf or team[p] != team[victim])]
                weights = [2.0 ** (2 * skill[p]) for p in rivals]
                killer = rng.choices(rivals, weights)[0]
                mod_id, mod = rng.choice(weapons)
                log(t, f"Kill: {cid[killer]} {cid[victim]} {mod_id}: {killer} killed {victim} by {mod}")
                frags[killer] += 1
            if ctf and rng.random() < 0.12:
                carrier = rng.choice(present)
                flag = "BLUE" if team[carrier] == 1 else "RED"
                log(t, f"CTF: {cid[carrier]} {team[carrier]} 0: {carrier} got the {flag} flag!")
                t += rng.randrange(5, 25)
                log(t, f"CTF: {cid[carrier]} {team[carrier]} 1: {carrier} captured the {flag} flag!")
                captures[team[carrier]] += 1
        log(t, "Exit: Timelimit hit.")
        if ctf:
            # The final score: the captures made (team 1 is red, 2 blue).
            log(t, f"red:{captures[1]}  blue:{captures[2]}")
        for p in sorted(present, key=lambda p: -frags[p]):
            log(t, f"score: {frags[p]}  ping: {rng.randrange(20, 90)}  client: {cid[p]} {p}")
        log(t, "ShutdownGame:")
        day += datetime.timedelta(days=2 if game % 2 else 1)
    log(t, "-" * 60)
    write("games.log", "\n".join(lines) + "\n")


def catan_log(rng):
    group = ["Alex", "Bea", "Cam", "Dana", "Eli", "Fay", "Gus"]
    skill = dict(zip(group, [1.0, 0.8, 0.6, 0.5, 0.3, 0.2, 0.0]))
    day = datetime.date(2029, 1, 12)
    nights = []
    for _ in range(40):
        table = rng.sample(group, rng.randrange(3, 6))
        vp = rng.choice([10, 10, 10, 12])
        perf = sorted(table, key=lambda p: -(skill[p] + rng.gauss(0, 0.8)))
        pts = {perf[0]: vp + rng.choice([0, 0, 1])}
        for p in perf[1:]:
            pts[p] = max(2, min(vp - 1, vp - 1 - rng.randrange(0, 6)))
        order = sorted(table, key=lambda p: (p != perf[0], -pts[p]))
        nights.append(f"{day} : {vp} : " + ", ".join(f"{p} {pts[p]}" for p in order))
        day += datetime.timedelta(days=rng.randrange(5, 20))
    write("catan-games.txt", "\n".join(reversed(nights)) + "\n")


def codeforces(rng):
    os.makedirs(os.path.join(HERE, "codeforces"), exist_ok=True)
    handles = [f"coder{i:02}" for i in range(1, 41)]
    skill = {h: rng.gauss(0, 1) for h in handles}
    for contest in range(1, 7):
        field = rng.sample(handles, rng.randrange(25, 36))
        score = {h: round(skill[h] + rng.gauss(0, 0.7), 1) for h in field}
        ranked = sorted(field, key=lambda h: -score[h])
        rows, i = [], 0
        while i < len(ranked):
            j = i
            while j + 1 < len(ranked) and score[ranked[j + 1]] == score[ranked[i]]:
                j += 1
            rows += [f"{h} {i + 1} {j + 1}" for h in ranked[i : j + 1]]
            i = j + 1
        write(f"codeforces/{contest}.txt", f"{len(rows)}\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    f1_season(random.Random(2030))
    quake_log(random.Random(3))
    catan_log(random.Random(1995))
    codeforces(random.Random(10))
