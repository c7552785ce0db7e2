#!/usr/bin/env python3
"""An independent Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013),
written from the paper in Python, for checking src/domain/rating.rs: prints
random sequences of one-game rating periods between a few players and the
ratings after each, as JSON (tests/data/glicko2-sequences.json).

    scripts/glicko2-reference.py > tests/data/glicko2-sequences.json
"""
import json
import math
import random

TAU, SCALE, EPS = 0.5, 173.7178, 1e-6


def update(player, games):
    """player = (r, rd, sigma); games = [((r, rd, sigma), score)]."""
    r, rd, sigma = player
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    gs = [(1 / math.sqrt(1 + 3 * (o[1] / SCALE) ** 2 / math.pi ** 2), (o[0] - 1500) / SCALE, s) for o, s in games]
    es = [1 / (1 + math.exp(-g * (mu - muj))) for g, muj, _ in gs]
    v = 1 / sum(g * g * e * (1 - e) for (g, _, _), e in zip(gs, es))
    delta = v * sum(g * (s - e) for (g, _, s), e in zip(gs, es))
    a = math.log(sigma ** 2)

    def f(x):
        ex = math.exp(x)
        return ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2) - (x - a) / TAU ** 2

    A = a
    if delta ** 2 > phi ** 2 + v:
        B = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        B = a - k * TAU
    fA, fB = f(A), f(B)
    while abs(B - A) > EPS:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA /= 2
        B, fB = C, fC
    sigma2 = math.exp(A / 2)
    phi_star = math.sqrt(phi ** 2 + sigma2 ** 2)
    phi2 = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu2 = mu + phi2 ** 2 * sum(g * (s - e) for (g, _, s), e in zip(gs, es))
    return (SCALE * mu2 + 1500, SCALE * phi2, sigma2)


rng = random.Random(20261125)
sequences = []
for _ in range(10):
    players = [(1500.0, 350.0, 0.06) for _ in range(4)]
    strength = [rng.uniform(-1, 1) for _ in range(4)]
    games = []
    for _ in range(30):
        x, o = rng.sample(range(4), 2)
        p = 1 / (1 + math.exp(strength[o] - strength[x]))
        roll = rng.random()
        score = 0.5 if abs(roll - p) < 0.05 else (1.0 if roll < p else 0.0)
        before_x, before_o = players[x], players[o]
        players[x] = update(before_x, [(before_o, score)])
        players[o] = update(before_o, [(before_x, 1 - score)])
        games.append({"x": x, "o": o, "x_score": score, "x_after": players[x], "o_after": players[o]})
    sequences.append(games)
print(json.dumps({"tau": TAU, "sequences": sequences}, separators=(",", ":")))
