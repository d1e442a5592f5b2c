self.fc = nn.Linear(512 * block.expansion * self.fc_scale, num_classes)
