"""A person at the table sees the table as its own seat does, never another seat's secrets."""

from __future__ import annotations

import snail_envs
from snail_envs.agents import HumanAgent


def test_a_person_sees_its_own_hand_and_no_other() -> None:
    env = snail_envs.make("snailed_it_v0", num_players=3)
    env.reset(seed=0)
    agent = env.agent_selection
    host = env.unwrapped
    shown: list[str] = []
    legal = host.legal_actions(agent)
    chosen = HumanAgent(read=lambda prompt: "1", write=shown.append).act_in(env, agent)
    assert chosen == legal[0]
    assert shown[0] == host.render_seat(agent)
    others = [other for other in env.agents if other != agent]
    assert host.private_text(agent) in shown[0]
    assert all(host.private_text(other) not in "\n".join(shown) for other in others)
