L=loss (out, slp)
