      parser.add_argument('--batch_size', default=1, type=int,
                              help='training batch size')
