"""The applications built on the environments and the agents: the commands people run to play,
watch and show games.

- `snail_envs.apps.play`: `snail-play`, one game in the terminal, people and bots at one table.
- `snail_envs.apps.serve` (with its page, `web/`): `snail-serve`, play and watch in the browser.
- `snail_envs.apps.replay`: `snail-replay` and the replay format a played game is kept in.
- `snail_envs.apps.narration`: what changed, told from one seat, for the people playing.
- `snail_envs.apps.video`: a game as a GIF or an MP4, one picture per decision.
- `snail_envs.apps.seats`: the seats' names people read ("You", "heuristic") in all of these.

Agents (`snail_envs.agents`, the person's `HumanAgent` among them) choose moves; the apps seat
them at a table and show the game.
"""
