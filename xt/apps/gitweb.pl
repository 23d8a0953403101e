# gitweb (Debian's, git 2.39): a large CGI.pm application over a git
# repository (git run through pipes), its configuration file read from
# the script's directory, path-info and query URLs, a search form.
my $SCRIPT = '/usr/share/gitweb/gitweb.cgi';
{
    source  => 'Debian gitweb',
    missing => sub { deb_missing('gitweb', $SCRIPT, '/usr/bin/git') },
    layout  => sub {
        my ($l) = @_;
        # (its default, do "gitweb_config.perl", finds nothing since perl
        # 5.26 took '.' out of @INC: the configuration named, as
        # GITWEB_CONFIG would)
        put("$l->{dir}/gitweb.cgi", edit(mirror_text_file($SCRIPT),
            qr{\|\| "gitweb_config.perl";} => qq{|| "$l->{final_dir}/gitweb_config.perl";}), 0755);
        put("$l->{dir}/gitweb_config.perl", "\$projectroot = '$l->{final_data}/repos';\n\$site_name = 'xt apps';\n"
            . "\$projects_list_description_width = 40;\n\$feature{'search'}{'default'} = [1];\n");
        my $repo = "$l->{data}/repos/demo.git";
        my $work = "$l->{data}/../gitweb-work";
        local %ENV = (%ENV, GIT_AUTHOR_NAME => 'Alice', GIT_AUTHOR_EMAIL => 'alice@example.org',
                      GIT_COMMITTER_NAME => 'Alice', GIT_COMMITTER_EMAIL => 'alice@example.org', HOME => $l->{data});
        system("git init -q -b main '$work'") == 0 or die "git init failed\n";
        my $t = 1_600_000_000;
        for my $i (1 .. 3) {
            put("$work/README", "Demo project\n" . join("", map { "line $_\n" } 1 .. $i));
            put("$work/src/main.c", "int main(void) { return $i; }\n");
            local $ENV{GIT_AUTHOR_DATE} = "$t +0000";
            local $ENV{GIT_COMMITTER_DATE} = "$t +0000";
            system("cd '$work' && git add -A && git commit -q -m 'Change number $i' && git tag v$i") == 0 or die "git commit failed\n";
            $t += 86400;
        }
        system("git clone -q --bare '$work' '$repo' && rm -rf '$work'") == 0 or die "git clone failed\n";
        put("$repo/description", "A demo repository\n");
    },
    session => [
        { user => 'alice', get => '/cgi-bin/gitweb/gitweb.cgi' },
        { user => 'bob',   get => '/cgi-bin/gitweb/gitweb.cgi?p=demo.git;a=summary' },
        { user => 'alice', get => '/cgi-bin/gitweb/gitweb.cgi?p=demo.git;a=log' },
        { user => 'carol', get => '/cgi-bin/gitweb/gitweb.cgi/demo.git/tree' },
        { user => 'bob',   get => '/cgi-bin/gitweb/gitweb.cgi?p=demo.git;a=blob_plain;f=src/main.c;hb=HEAD' },
        { user => 'alice', get => '/cgi-bin/gitweb/gitweb.cgi?p=demo.git;a=commitdiff;h=v2' },
        { user => 'carol', get => '/cgi-bin/gitweb/gitweb.cgi?p=demo.git;a=search;h=HEAD;st=commit;s=number+3' },
        { user => 'bob',   get => '/cgi-bin/gitweb/gitweb.cgi?p=demo.git;a=atom' },
        { user => 'carol', get => '/cgi-bin/gitweb/gitweb.cgi?p=nosuch.git' },
    ],
};
