return all_masks[order], np.array([[np.array(on), np.array(off)] for on,off in inds_lists])
