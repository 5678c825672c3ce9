"""Play the games in a web browser: against any agents, Snap in real time; watch and replay games.

    snail-serve                                    # then open http://127.0.0.1:8000/
    snail-serve --replays games/ --save-dir games/ --tick-ms 150
    python -m snail_envs.apps.serve --help

In the page a person picks a game (its rules shown from `snail_envs.docstrings.rulebook`), a
rule preset of `configs/<game>/` or options of their own, their seat, and an agent for every
other seat (any `make_agent` spec: `heuristic`, `random`, `ismcts:500`, `rollout`, `search`,
`ppo`, `ppo:PATH`, ..., each described by its line of `snail_envs.agents.AGENT_KINDS`), then
presses Start and plays: the table as their seat sees it, their legal moves as buttons, a
narrated log from their seat, the result, the seats named "You" and by their agents
(`snail_envs.apps.seats`). The seat choice is the person's alone: editing the number of players
never un-seats them, and only Start starts a game. With nobody seated the bots play each other
at a pace the page sets (and changes while they play). The Replays tab opens the
replays of the `--replays` folder (`docs/replays.md`) and steps through them; a finished game is
saved there with Save replay when `--save-dir` names that folder (never over a file that
exists). Needs the `web` extra: `pip install "snail_envs[web]"`.

The server holds every rule: it drives the same AEC environments and agents as `snail-play`,
each page's game its own (`session`), and sends a page only its seat's view (`table`); the page
shows what it is sent and sends what the person does (`snail_envs/apps/web/`: plain HTML, CSS and
JavaScript, no build step). Every message from a page is checked (`messages`).

## Snap in real time

A person playing Snap plays on the wall clock: a tick every `--tick-ms` milliseconds, whether
anyone calls or not. Space calls snap, P snap pool (the snap pot call), S slaps a Jack
(Slapjack); a key press counts for the tick in progress. The bots decide on the same clock, and
Snap's `reaction_delay` (in ticks, set for each seat in the page) gives them reflexes: a seat
with delay d may call from the (d+1)-th tick of a window on. The page shows each seat's delay
and, for each of the person's calls, the milliseconds from the flip appearing to the key press.

Why 150 ms by default: a person reacts to a match in 250–400 ms, which with 150-ms ticks is a
call in the second or third tick of the window (150–300 ms and 300–450 ms after the flip). Such
a person beats every bot slowed to a delay of 3 or 4 ticks (in windows of `reaction_ticks=5`),
beats or ties one of delay 2, ties or loses to one of delay 1 and loses to an unslowed one, as
a slower player would at a real table. A window on a match lasts `reaction_ticks` ticks, 3 by
default: 450 ms, longer than the person's reaction, so the match still shows when they call.
Much shorter ticks would need windows of many ticks and would flip the unmatched cards (a tick
each) too fast to see; much longer ones would make every press a first-tick call, tying the
fastest bots.

## Pictures: PNG from the renderers, not SVG from a JSON view

The page shows the environments' own pictures (`render_seat(agent, "rgb_array")`, the
spectator's `render_picture` when watching, the seats named as the page names them), as PNG
sent in each frame message: one drawing of each game, the one the library's no-leak tests check,
and no second renderer in JavaScript to keep in step with it. Measured on the development
machine (2 shared cores, while other jobs ran; medians over 40 positions of random play; scratch
measurement, not shipped):

| | Snap | Snailed It! | Snail Sprint! | Pędzące Ślimaki |
|---|---|---|---|---|
| server: picture drawn | 9.1 ms | 19.2 ms | 17.8 ms | 19.7 ms |
| server: PNG encoded (`compress_level=1`) | 8.6 ms | 14.8 ms | 12.7 ms | 16.6 ms |
| data URL sent | 26 kB | 66 kB | 57 kB | 55 kB |
| browser: PNG decoded (Chromium) | 6.0 ms | 8.7 ms | 21.2 ms | 21.4 ms |

Against it, a JSON view of Snap's table (tops, stack and pile sizes, the window's tick: 91 bytes,
0.05 ms to build) drawn as SVG in the browser took 0.7 ms to build and lay out. SVG is thus
about ten times cheaper, but a Snap frame costs about 25 ms of a 150-ms tick either way, and the
pictures are drawn in a worker thread, so ticks do not stall: in the browser test of real-time
Snap the pictures arrived every 151 ms (median; 5th–95th percentile 110–180 ms, at most
198 ms) at `--tick-ms 150`. A tick whose work outlasts it (a searching bot: `ismcts:50` takes
about 200 ms a decision in Snap) starts the clock again rather than hurrying the next ticks, and
the page says how many ticks were late.

## Safety

The server listens on 127.0.0.1 unless told otherwise (`--host` elsewhere warns: anyone who
reaches it can play and have it load policy files by path, `ppo:PATH`, weights only). It answers
only its own host names (127.0.0.1, localhost, [::1], or `--host`'s, and `--allowed-host`'s),
so a site whose name is pointed at this machine (DNS rebinding) gets nothing, and refuses
WebSockets opened by pages of any other origin. It serves no file outside `apps/web/`, reads
replays from the `--replays` folder alone (a name the page sends must be one of the files it
lists there), drops a page that has sent nothing for `--idle-timeout` seconds (600), and
answers every bad message with a short error the page shows, going on: an error quotes at most
a short piece of what the page sent, and a policy path gets only "no such agent file" or "not
a weights-only policy", never a path of the server or what a file holds.

No page can hold the server: each page's work runs in its own worker thread, one task at a
time; its bots are held to the limits `--max-bots`, `--max-ismcts-iterations`,
`--max-search-iterations`, `--max-search-seconds`, `--max-rollout-worlds` and
`--max-network-parameters` (a spec over one is refused with a line naming it); and stopping a
game, starting another or closing the page stops its bots' search at the next iteration.
SIGTERM and Ctrl-C stop the server within seconds, whatever its bots are doing; a replay is
saved whole or not at all. `benchmarks/serve_load.py` times a fresh page's wait for its game
while other pages' bots think as hard as allowed: 0.9 s (median of 3) beside 8 pages of two
`ismcts:2000` bots each, on the development machine's 2 shared cores.

No seed of a game reaches a page before the game is over: every game hides something and is
deterministic, so its seed would rebuild every hand. A seed the server draws is sent in the
last frame; a page may choose the seed of the game it plays (to deal a game again), and then
knows only what anyone who chooses a deal knows (`Table.opening`).
"""
