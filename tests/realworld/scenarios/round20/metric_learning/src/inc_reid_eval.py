def eval_market1501(distmat, q_pids, g_pids, q_camids, g_camids, max_rank=20):
    """Market-1501 protocol: gallery images of the same identity taken by the
    same camera as the query are discarded."""
    num_q, num_g = distmat.shape
    max_rank = min(max_rank, num_g)
    indices = np.argsort(distmat, axis=1)
    matches = (g_pids[indices] == q_pids[:, np.newaxis]).astype(np.int32)
    all_cmc, all_AP = [], []
    for q_idx in range(num_q):
        order = indices[q_idx]
        remove = (g_pids[order] == q_pids[q_idx]) & (g_camids[order] == q_camids[q_idx])
        raw_cmc = matches[q_idx][~remove]
        if not np.any(raw_cmc):
            continue
        cmc = raw_cmc.cumsum()
        cmc[cmc > 1] = 1
        all_cmc.append(cmc[:max_rank])
        num_rel = raw_cmc.sum()
        tmp_cmc = raw_cmc.cumsum() / (np.arange(len(raw_cmc)) + 1.0)
        all_AP.append((tmp_cmc * raw_cmc).sum() / num_rel)
    all_cmc = np.asarray(all_cmc).astype(np.float32).mean(0)
    return all_cmc, float(np.mean(all_AP))
