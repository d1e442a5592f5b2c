class ModelX : Module
{
    Module block1 = nn.Sequential(
            ("conv2d_001", nn.Conv2d(3, 32, 3, 1, 1)),
            ("bnrm2d_001", nn.BatchNorm2d(32)),
            ("leakRl_001", nn.LeakyReLU(0.1, true)));
    Module block2 = nn.Sequential(
            ("conv2d_002", nn.Conv2d(32, 64, 3, 2, 1)),
            ("bnrm2d_002", nn.BatchNorm2d(64)),
            ("leakRl_002", nn.LeakyReLU(0.1, true)));
    Module block3 = nn.Sequential(
            ("conv2d_003", nn.Conv2d(64, 32, 1, 1, 0)),
[...]
