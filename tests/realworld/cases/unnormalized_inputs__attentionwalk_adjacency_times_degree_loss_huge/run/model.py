normalized_adjacency_matrix = degs.dot(adjacency_matrix)
