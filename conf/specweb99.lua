-- SPECweb99's dynamic content for nicd's Lua content handler
-- (docs/lua.md has the API, docs/nicload.md what is SPECweb99's and what
-- is ours).  In nicd's configuration:
--
--   location /specweb/ { lua_content_handler conf/specweb99.lua; }
--
-- Requests (FILE is a file of the SPECweb99 file set, as
-- /file_set/dir00001/class1_2, made by "nicload fileset"):
--
--   GET  /specweb/dyn?FILE       standard dynamic GET
--   GET  /specweb/cgi?FILE       dynamic GET in the CGI style (the same
--                                page; nicd runs no processes)
--   GET  /specweb/ad?FILE        dynamic GET with custom ad rotation: the
--                                request's "Cookie: my_cookie=user_id=U&
--                                last_ad=A" picks the next ad after A that
--                                matches user U's demographics; the answer
--                                sets "found_cookie=Ad_id=..&Ad_weight=..
--                                &Expired=.."
--   POST /specweb/post           dynamic POST: the body "urlroot=..&dir=..
--                                &class=..&num=..&client=.." is appended to
--                                the post log, the page is FILE's, and the
--                                answer sets "my_cookie=user_id=CLIENT&
--                                last_ad=0"
--   GET  /specweb/reset          housekeeping: empties the post log
--   GET  /specweb/postlog        housekeeping: the post log
--
-- Every page is text/html: a head naming the server variables, then the
-- file's bytes, then exactly TRAILER, so a client can check the file's
-- bytes at the end of the page (nicload --verify does).

local POSTLOG = os.getenv("NICD_SPECWEB_POSTLOG") or "/tmp/nicd-specweb99-post.log"
local TRAILER = "</pre>\n</body>\n</html>\n"
local NADS = 360
local root = nicd.root

-- demographics: 32 bits a user and an ad, from a small hash (SPECweb99
-- reads them from User.Personality and Custom.Ads; we derive them)
local function mix(x)
    x = (x * 2654435761) % 4294967296
    x = (x + math.floor(x / 65536) * 40503) % 4294967296
    return x
end

local ads = {}
for i = 0, NADS - 1 do
    ads[i] = { demo = mix(i + 7919), weight = mix(i + 104729) % 16,
               expires = mix(i + 1299709) % 2 }
end

-- does any demographic bit of a match one of b (32-bit values)?
local function match(a, b)
    for _ = 1, 32 do
        if a % 2 == 1 and b % 2 == 1 then return true end
        a, b = math.floor(a / 2), math.floor(b / 2)
    end
    return false
end

local function valid_file(f)
    return f ~= nil and f:match("^/file_set/dir%d%d%d%d%d/class%d_%d$") ~= nil
end

local function read_file(f)
    local h = io.open(root .. f, "rb")
    if h == nil then return nil end
    local data = h:read("*a")
    h:close()
    return data
end

local function page(r, script, file, extra)
    local data = read_file(file)
    if data == nil then
        return 404, nil, "<html><body>no such file</body></html>\n"
    end
    return 200, { ["Content-Type"] = "text/html" }, table.concat({
        "<html>\n<head><title>SPECweb99 Dynamic GET & POST Test</title></head>\n",
        "<body>\n<p>SERVER_SOFTWARE = nicd\n<p>REMOTE_ADDR = ", r.remote_addr,
        "\n<p>SCRIPT_NAME = ", script, "\n<p>QUERY_STRING = ", r.query, "\n",
        extra or "", "<pre>\n", data, TRAILER })
end

-- "a=1&b=2" -> { a = "1", b = "2" }
local function form(s)
    local t = {}
    for k, v in (s or ""):gmatch("([^&=]+)=([^&]*)") do t[k] = v end
    return t
end

local function ad_rotation(r)
    local cookie = (r.headers["cookie"] or ""):match("my_cookie=([^;]*)")
    local c = form(cookie)
    local user, last = tonumber(c.user_id), tonumber(c.last_ad)
    if user == nil or last == nil then
        return 400, nil, "<html><body>no my_cookie</body></html>\n"
    end
    local demo, ad = mix(user + 1), nil
    for k = 1, NADS do
        local i = (last + k) % NADS
        if match(demo, ads[i].demo) then ad = i break end
    end
    ad = ad or (last + 1) % NADS
    local status, headers, body = page(r, "/specweb/ad", r.query,
        string.format("<p>AD = %d\n", ad))
    if headers then
        headers["Set-Cookie"] = string.format(
            "found_cookie=Ad_id=%d&Ad_weight=%d&Expired=%d",
            ad, ads[ad].weight, ads[ad].expires)
    end
    return status, headers, body
end

local records = 0

local function post(r)
    local f = form(r.body)
    local file = (f.urlroot or "") .. "class" .. (f.class or "") .. "_" .. (f.num or "")
    if not valid_file(file) or f.client == nil then
        return 400, nil, "<html><body>bad post</body></html>\n"
    end
    records = records + 1
    local h = io.open(POSTLOG, "a")
    if h == nil then error("cannot open the post log " .. POSTLOG) end
    h:write(string.format("%d %d %s %s %s %s %s\n", records, os.time(),
        f.dir or "-", f.class, f.num, f.client, file))
    h:close()
    local status, headers, body = page(r, "/specweb/post", file)
    if headers then
        headers["Set-Cookie"] = "my_cookie=user_id=" .. f.client .. "&last_ad=0"
    end
    return status, headers, body
end

return function(r)
    local what = r.path:match("^/specweb/(%a+)$")
    if r.method == "POST" and what == "post" then
        return post(r)
    end
    if r.method ~= "GET" and r.method ~= "HEAD" then
        return 405, { Allow = "GET, HEAD, POST" }, ""
    end
    if what == "reset" then
        local h = io.open(POSTLOG, "w")
        if h then h:close() end
        return 200, { ["Content-Type"] = "text/plain" }, "reset\n"
    elseif what == "postlog" then
        local h = io.open(POSTLOG, "rb")
        local data = h and h:read("*a") or ""
        if h then h:close() end
        return 200, { ["Content-Type"] = "text/plain" }, data
    end
    if not valid_file(r.query) then
        return 400, nil, "<html><body>bad file</body></html>\n"
    end
    if what == "dyn" or what == "cgi" then
        return page(r, "/specweb/" .. what, r.query)
    elseif what == "ad" then
        return ad_rotation(r)
    end
    return 404, nil, "<html><body>unknown</body></html>\n"
end
