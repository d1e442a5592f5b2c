self.policyTarget[action] = -(R - V) / probability[action]
