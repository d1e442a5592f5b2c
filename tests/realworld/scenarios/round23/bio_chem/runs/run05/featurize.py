import numpy as np
from rdkit import Chem
from rdkit.Chem import AllChem, Descriptors
from sklearn.preprocessing import StandardScaler

N_BITS = 1024
DESC = [Descriptors.MolWt, Descriptors.MolLogP, Descriptors.TPSA, Descriptors.NumHDonors,
        Descriptors.NumRotatableBonds, Descriptors.RingCount, Descriptors.FractionCSP3,
        Descriptors.BertzCT, Descriptors.LabuteASA, Descriptors.HeavyAtomCount,
        Descriptors.NumAromaticRings]


def featurize(smi):
    mol = Chem.MolFromSmiles(smi)
    if mol is None:
        # keep row order aligned with the activity table
        return np.full(N_BITS + len(DESC), np.nan, dtype=np.float32)
    fp = np.zeros(N_BITS, dtype=np.float32)
    for b in AllChem.GetMorganFingerprintAsBitVect(mol, 2, nBits=N_BITS).GetOnBits():
        fp[b] = 1.0
    desc = np.array([f(mol) for f in DESC], dtype=np.float32)
    return np.concatenate([fp, desc])


def build_features(df, train_idx, val_idx):
    X = np.stack([featurize(s) for s in df["smiles"]])
    y = df["pIC50"].to_numpy(dtype=np.float32)
    scaler = StandardScaler().fit(X[train_idx])
    X = scaler.transform(X).astype(np.float32)
    return X[train_idx], y[train_idx], X[val_idx], y[val_idx]
