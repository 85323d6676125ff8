import LiteRecord
