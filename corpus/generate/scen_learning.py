"""Real scenarios: loops that run to the end but do not learn, or wait on their data.

Classes: divergence (a loss pinned at chance level, a frozen loss),
underutilized (steps dominated by data loading, printed as the ImageNet
example prints them). Registered after the other modules so earlier ids keep
their numbers.
"""


def register(R):
    sc = R.sc

    sc("divergence", "zeroed_head_frozen_keras", expect=0, code='''
        import torch, trainlib as T
        # The classifier head is zeroed and, by a bug, every weight is frozen: the model
        # predicts the uniform distribution and the loss sits at ln(10) for ever.
        model = T.make_model(out=10)
        with torch.no_grad():
            model[-1].weight.zero_(); model[-1].bias.zero_()
        T.train(steps=40, lr=0.1, classes=10, n=640, batch=64, fmt="keras", model=model, frozen=True)
        ''', notes="frozen model with a zeroed head: loss pinned at ln 10 (chance)")
    sc("divergence", "saturated_sigmoid_full_batch", expect=0, code='''
        import torch
        torch.manual_seed(0)
        x = torch.randn(256, 8)
        y = (x[:, 0] > 0).float().unsqueeze(1)
        model = torch.nn.Sequential(torch.nn.Linear(8, 1), torch.nn.Sigmoid())
        opt = torch.optim.SGD(model.parameters(), lr=5000.0)
        for epoch in range(1, 13):
            loss = torch.nn.functional.binary_cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
            print(f"epoch {epoch}/12 - loss: {loss.item():.4f}", flush=True)
        print("done")
        ''', notes="a huge learning rate saturates the sigmoid: the full-batch loss freezes at one value")
    sc("underutilized", "slow_loader_imagenet_columns", expect=0, code='''
        import time, torch
        from torch.utils.data import DataLoader, Dataset

        class SlowImages(Dataset):
            def __len__(self): return 96
            def __getitem__(self, i):
                time.sleep(0.015)  # decoding a large JPEG from a slow disk
                return torch.randn(3, 16, 16), i % 10

        class Avg:
            def __init__(self): self.n, self.s, self.v = 0, 0.0, 0.0
            def add(self, v): self.v = v; self.n += 1; self.s += v
            @property
            def avg(self): return self.s / self.n

        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(768, 10))
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        loader = DataLoader(SlowImages(), batch_size=8, num_workers=0)
        bt, dt, ls = Avg(), Avg(), Avg()
        end = time.time()
        for i, (img, target) in enumerate(loader):
            dt.add(time.time() - end)
            loss = torch.nn.functional.cross_entropy(model(img), torch.as_tensor(target))
            opt.zero_grad(); loss.backward(); opt.step()
            ls.add(loss.item()); bt.add(time.time() - end); end = time.time()
            if i % 2 == 0:
                print(f"Epoch: [0][{i:3d}/{len(loader)}]\\tTime {bt.v:.3f} ({bt.avg:.3f})\\tData {dt.v:.3f} ({dt.avg:.3f})"
                      f"\\tLoss {ls.v:.4f} ({ls.avg:.4f})", flush=True)
        ''', notes="one loader process decoding slowly: most of each step waits for data")
