import random

NAMES = "anna bram cora dirk elsa finn greta hugo ida jonas karl lena mats nora otto pia".split()
ADJ = "old young quiet tired clever small tall brave grey green cold warm wet bright dark heavy".split()
PEOPLE = "miller baker sailor farmer weaver smith hunter priest widow child soldier merchant".split()
ANIMALS = "dog horse goat crow fox cat ox hen".split()
THINGS = "bread rope lamp boat cart bell coat knife basket letter wheel barrel".split()
PLACES = "river market mill harbour forest church bridge village hill field road tower".split()
VT = {  # transitive verb -> plausible objects
    "carried": THINGS, "sold": THINGS, "mended": THINGS, "found": THINGS + ANIMALS,
    "fed": ANIMALS, "chased": ANIMALS, "watched": ANIMALS + PEOPLE, "greeted": PEOPLE,
    "followed": PEOPLE + ANIMALS, "painted": THINGS, "lost": THINGS, "buried": THINGS,
}
VI = "slept sang waited walked wept laughed prayed worked rested listened".split()
PREP = "near behind beside across under beyond".split()
TIME = "at dawn|in the evening|after the rain|before the frost|on market day|in the winter|at noon|by moonlight".split("|")
CONJ = "and then|but|while|because|so".split("|")
SAY = "said|thought|knew|heard|dreamed".split("|")


def np_(r, pool=None):
    if pool is None:
        pool = PEOPLE if r.random() < 0.7 else ANIMALS
        if r.random() < 0.25:
            return r.choice(NAMES)
    det = r.choice(["the", "the", "a", "his", "her", "that"])
    n = r.choice(pool)
    if r.random() < 0.45:
        return f"{det} {r.choice(ADJ)} {n}"
    return f"{det} {n}"


def vp(r, depth=0):
    x = r.random()
    if x < 0.5:
        v = r.choice(list(VT))
        s = f"{v} {np_(r, VT[v])}"
    elif x < 0.85 or depth > 0:
        s = r.choice(VI)
    else:
        return f"{r.choice(SAY)} that {np_(r)} {vp(r, depth + 1)}"
    if r.random() < 0.5:
        s += f" {r.choice(PREP)} the {r.choice(PLACES)}"
    if r.random() < 0.25:
        s += f" {r.choice(TIME)}"
    return s


def sentence(r):
    s = f"{np_(r)} {vp(r)}"
    if r.random() < 0.35:
        s += f" {r.choice(CONJ)} {np_(r)} {vp(r)}"
    if r.random() < 0.15:
        s = f"{r.choice(TIME)} , {s}"
    return s + " ."


def corpus(seed, n_docs, min_sent=2, max_sent=6):
    """Return a list of lines; each line is a short 'document' of several sentences."""
    r = random.Random(seed)
    return [" ".join(sentence(r) for _ in range(r.randint(min_sent, max_sent))) for _ in range(n_docs)]


if __name__ == "__main__":
    for l in corpus(0, 5):
        print(l)
    c = corpus(1, 4000)
    toks = " ".join(c).split()
    print(len(toks), len(set(toks)), len(" ".join(c)))
