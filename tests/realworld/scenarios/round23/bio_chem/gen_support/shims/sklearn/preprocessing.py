import numpy as np


class StandardScaler:
    """NaNs are disregarded in fit and kept in transform, like sklearn."""

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = np.nanmean(X, axis=0)
        var = np.nanvar(X, axis=0)
        self.scale_ = np.where(var == 0, 1.0, np.sqrt(var))
        return self

    def transform(self, X):
        return (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_

    def fit_transform(self, X, y=None):
        return self.fit(X).transform(X)
