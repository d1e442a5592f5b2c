obs, actions, advantages_extr, returns_extr = flatten_and_shuffle(segment.obs.permute(0, 1, 4, 2, 3), segment.actions, advantages_extr, returns_extr)
advantages_intr, returns_intr = flatten_and_shuffle(advantages_intr, returns_intr)
