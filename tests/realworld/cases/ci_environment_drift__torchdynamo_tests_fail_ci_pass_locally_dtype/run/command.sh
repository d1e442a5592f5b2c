git checkout mlazos/disallow-dtype
