python train_PersonaChat.py --load_from persona_original --eval
