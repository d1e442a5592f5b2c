sh scripts/search_sbms_cluster.sh [gpu_id]
