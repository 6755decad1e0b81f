-- SPDX-License-Identifier: LGPL-2.1-or-later
-- errors.lua: a Lua 5.4 workload for compare.sh whose control flow leaves
-- C frames by longjmp: error() caught by pcall() and xpcall() at several
-- depths, errors raised inside coroutines, yields from inside a pcall()
-- (a yield across a protected call unwinds the C stack too), a sort
-- whose comparator raises, and plain work in between. The interpreter's
-- C functions are what gets traced; its output is one line of checksums.
-- The arguments name the parts to run (throw, nested, yield, coerror,
-- xpcall, sort, strings); none: all of them.

local parts = {}
for _, a in ipairs(arg) do parts[a] = true end
local function run(p) return #arg == 0 or parts[p] end

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

-- error() through a recursion, caught by pcall()
local caught = 0
if run("throw") then
  local function thrower(d)
    if d == 0 then error({ depth = d }) end
    return thrower(d - 1) + 1
  end
  for i = 1, 300 do
    local ok, e = pcall(thrower, i % 9)
    if not ok and type(e) == "table" then caught = caught + 1 end
  end
end

-- nested protected calls: the inner one catches, the outer one re-raises
local outer = 0
if run("nested") then
  local function nested(n)
    local ok = pcall(function()
      local ok2 = pcall(error, "inner " .. n)
      if not ok2 then error("outer " .. n) end
    end)
    return ok and 0 or 1
  end
  for i = 1, 200 do outer = outer + nested(i) end
end

-- a coroutine that yields from inside a pcall()
local acc = 0
if run("yield") then
  local co = coroutine.wrap(function(a)
    for i = 1, 100 do
      pcall(function() a = coroutine.yield(a + i) end)
    end
    return -1
  end)
  for i = 1, 100 do acc = acc + co(i) end
end

-- errors inside coroutines, seen by resume()
local dead = 0
if run("coerror") then
  for i = 1, 100 do
    local c = coroutine.create(function(x)
      coroutine.yield(x)
      if x % 2 == 0 then error("even " .. x) end
      return x
    end)
    coroutine.resume(c, i)
    local ok = coroutine.resume(c)
    if not ok then dead = dead + 1 end
  end
end

-- xpcall with a message handler that walks the stack
local tb = 0
if run("xpcall") then
  for i = 1, 50 do
    local _, msg = xpcall(function() local t = nil; return t[i] end,
                          debug.traceback)
    tb = tb + #msg
  end
end

-- a comparator that raises in the middle of a sort
local sorted = 0
if run("sort") then
  for i = 1, 40 do
    local t = {}
    for j = 1, 60 do t[j] = (j * 7919 + i) % 101 end
    local ok = pcall(table.sort, t, function(a, b)
      if a == 50 and b == 51 then error("cmp") end
      return a < b
    end)
    if ok then sorted = sorted + 1 end
  end
end

-- string work with a callback
local n, len = 0, 0
if run("strings") then
  local s = {}
  for i = 1, 400 do
    s[#s + 1] = string.format("%d:%s", i, string.rep("ab", i % 6))
  end
  local joined = table.concat(s, ",")
  joined = joined:gsub("%d+", function(d) n = n + 1; return tostring(d * 2) end)
  len = #joined
end

print(fib(20), caught, outer, acc, dead, tb, sorted, n, len)
