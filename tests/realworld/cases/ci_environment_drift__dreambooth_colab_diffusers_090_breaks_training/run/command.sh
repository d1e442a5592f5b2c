%pip install -qq git+https://github.com/ShivamShrirao/diffusers
