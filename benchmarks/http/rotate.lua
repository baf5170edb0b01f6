-- wrk script: each request takes a random "key path" line of the file given after "--".
local targets = {}

init = function(args)
  for line in io.lines(args[1]) do
    local key, path = line:match("^(%S+) (%S+)$")
    if key then
      targets[#targets + 1] = { key, path }
    end
  end
  math.randomseed(os.time() + #targets)
end

request = function()
  local t = targets[math.random(#targets)]
  return wrk.format("GET", t[2], { ["X-Service-Org-Api-Key"] = t[1] })
end
